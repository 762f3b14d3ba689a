// Builds the registry from the op table rows, once.
#include "engine/ops/op_registry.h"

#include <set>

#include "engine/support/check.h"
#include "engine/support/edit_distance.h"

namespace graft {

namespace {

/// Copies a row's facts into its schema, checking them against the signature: a parameter or
/// variant attribute the schema lacks, or a role list longer than the operands, is a table bug.
void set_facts(OpSchema& schema, OpFacts facts) {
  schema.family = facts.family;
  GRAFT_CHECK(facts.family != OpFamily::kNone) << "op table: " << schema.name << " has no family";
  bool elementwise = facts.family == OpFamily::kUnary || facts.family == OpFamily::kBinary;
  GRAFT_CHECK(elementwise == facts.elementwise.has_value())
      << "op table: " << schema.name << ": a formula goes with the unary and binary families";
  if (facts.elementwise) {
    ElementwiseFacts& e = *facts.elementwise;
    GRAFT_CHECK(is_binary(e.formula) == (facts.family == OpFamily::kBinary))
        << "op table: " << schema.name << "'s formula does not fit its family";
    for (FormulaParam* p : {&e.alpha, &e.beta}) {
      if (p->attr.empty()) continue;
      p->index = schema.attr_index(p->attr);
      GRAFT_CHECK(p->index >= 0) << "op table: " << schema.name << " has no attribute " << p->attr;
    }
    for (FormulaVariant& v : e.variants) {
      v.index = schema.attr_index(v.attr);
      GRAFT_CHECK(v.index >= 0) << "op table: " << schema.name << " has no attribute " << v.attr;
    }
  }
  schema.elementwise = std::move(facts.elementwise);
  GRAFT_CHECK(facts.roles.size() <= schema.operands.size())
      << "op table: " << schema.name << " has more roles than operands";
  schema.roles = std::move(facts.roles);
  schema.roles.resize(schema.operands.size(), OperandRole::kElement);
  if (facts.no_reference != nullptr) schema.no_reference = facts.no_reference;
}

}  // namespace

const OpRegistry& OpRegistry::get() {
  static const OpRegistry* registry = new OpRegistry();  // never destroyed: nodes point into it
  return *registry;
}

OpRegistry::OpRegistry() {
  std::vector<OpDef> defs = builtin_op_defs();
  for (OpDef& def : fused_op_defs()) defs.push_back(std::move(def));
  ops_.reserve(defs.size());
  std::set<std::string> seen;
  for (OpDef& def : defs) {
    std::string error;
    std::optional<OpSchema> schema = parse_op_signature(def.signature, &error);
    GRAFT_CHECK(schema.has_value()) << "op table: " << def.signature << ": " << error;
    schema->id = static_cast<OpId>(ops_.size());
    schema->classes = std::move(def.classes);
    schema->infer = def.infer;
    schema->doc = def.doc;
    schema->commutative = def.commutative;
    set_facts(*schema, std::move(def.facts));
    if (!def.commutes_if_attr.empty()) {
      schema->commutes_if_attr = schema->attr_index(def.commutes_if_attr);
      GRAFT_CHECK(def.commutative && schema->commutes_if_attr >= 0)
          << "op table: " << schema->name << ": commutes_if names no attribute";
      schema->commutes_if_value = def.commutes_if_value;
    }
    schema->aliases = std::move(def.aliases);
    for (StrChoices& c : def.choices) {
      int a = schema->attr_index(c.attr);
      GRAFT_CHECK(a >= 0 && schema->attrs[a].type == AttrType::kString)
          << "op table: " << schema->name << " has no str attribute " << c.attr;
      AttrSpec& spec = schema->attrs[a];
      spec.choices = std::move(c.values);
      std::string err;
      GRAFT_CHECK(!spec.has_default || coerce_attr(spec, spec.default_value, &err))
          << "op table: " << schema->name << "'s default " << c.attr << ": " << err;
    }
    GRAFT_CHECK(seen.insert(schema->name).second) << "op table: duplicate op " << schema->name;
    for (const std::string& alias : schema->aliases) {
      GRAFT_CHECK(seen.insert(alias).second) << "op table: duplicate alias " << alias;
    }
    by_name_.emplace(schema->name, schema->id);
    for (const std::string& alias : schema->aliases) by_name_.emplace(alias, schema->id);
    ops_.push_back(std::move(*schema));
  }
}

const OpSchema* OpRegistry::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &ops_[it->second];
}

std::vector<const OpSchema*> OpRegistry::op_class(std::string_view cls) const {
  std::vector<const OpSchema*> result;
  for (const OpSchema& op : ops_) {
    if (op.in_class(std::string(cls))) result.push_back(&op);
  }
  return result;
}

std::vector<std::string> OpRegistry::class_names() const {
  std::set<std::string> names;
  for (const OpSchema& op : ops_) names.insert(op.classes.begin(), op.classes.end());
  return {names.begin(), names.end()};
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> result;
  for (const OpSchema& op : ops_) {
    result.push_back(op.name);
    result.insert(result.end(), op.aliases.begin(), op.aliases.end());
  }
  return result;
}

std::string OpRegistry::suggest(std::string_view name) const { return did_you_mean(name, names()); }

}  // namespace graft
