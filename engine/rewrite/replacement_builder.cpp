// Building a match's replacement ops into the graph (see replacement_builder.h): operands,
// attributes, placement and type inference. Folding ops over constants is in
// replacement_fold.cpp.
#include "engine/rewrite/replacement_builder.h"

#include <algorithm>
#include <limits>

#include "engine/rewrite/rule_location.h"
#include "engine/support/check.h"

namespace graft {
namespace {

/// A replacement attribute's value: a literal, a `$` variable's, dims bound by `where`, or the
/// name of a matched op.
AttrValue attr_value(const Match& m, const ReplValue& v) {
  switch (v.kind) {
    case ReplValue::Kind::kLiteral: return v.literal;
    case ReplValue::Kind::kSymbol: return AttrValue{static_cast<int64_t>(m.symbols[v.index])};
    case ReplValue::Kind::kDimList: {
      std::vector<int64_t> dims;
      for (const ReplValue& item : v.items) {
        if (item.kind == ReplValue::Kind::kAttrVar) {
          // Sema admits only variables bound to int items here.
          const auto* bound = std::get_if<int64_t>(&m.attr_vars[item.index]);
          GRAFT_CHECK(bound != nullptr) << "a list item variable bound to a non-int";
          dims.push_back(*bound);
        } else {
          // An int literal past 2^53 may have rounded up to 2^63 as a double: clamp, since
          // casting that is undefined (shape inference then rejects the size).
          dims.push_back(item.kind == ReplValue::Kind::kSymbol
                             ? static_cast<int64_t>(m.symbols[item.index])
                             : exact_int64(item.scalar.value)
                                   .value_or(std::numeric_limits<int64_t>::max()));
        }
      }
      return AttrValue{std::move(dims)};
    }
    case ReplValue::Kind::kAttrVar: return m.attr_vars[v.index];
    case ReplValue::Kind::kOpName: return AttrValue{m.nodes[v.index]->target()};
    default: GRAFT_UNREACHABLE();  // lowering gives attributes no other kind
  }
}

/// True if replacement op `op`'s attributes depend on the match only through `$` variables
/// and matched ops' names: literals, defaults, variables and names, no dims bound by `where`.
bool attrs_from_vars(const ReplOp& op) {
  return std::all_of(op.attrs.begin(), op.attrs.end(), [](const ReplValue& v) {
    return v.kind == ReplValue::Kind::kNone || v.kind == ReplValue::Kind::kLiteral ||
           v.kind == ReplValue::Kind::kAttrVar || v.kind == ReplValue::Kind::kOpName;
  });
}

/// True if the `$` variables and matched op names op `op`'s attributes read have, in `m`, the
/// values in `from` (bit for bit: attrs_identical).
bool same_attr_vars(const Match& m, const ReplOp& op, const AttrList& from) {
  size_t k = 0;
  for (const ReplValue& v : op.attrs) {
    if (v.kind == ReplValue::Kind::kOpName) {
      const auto* name = k < from.size() ? std::get_if<std::string>(&from[k++]) : nullptr;
      if (name == nullptr || *name != m.nodes[v.index]->target()) return false;
      continue;
    }
    if (v.kind != ReplValue::Kind::kAttrVar) continue;
    if (k == from.size() || !attrs_identical_one(m.attr_vars[v.index], from[k++])) return false;
  }
  return k == from.size();
}

}  // namespace

Input ReplacementBuilder::resolve(const Match& m, const ReplValue& v,
                                  const std::vector<Input>& results) {
  switch (v.kind) {
    case ReplValue::Kind::kNone: return Input::none();
    case ReplValue::Kind::kValue:
      return v.value.kind == ValueRef::Kind::kVar ? m.vars[v.value.index]
                                                  : Input::of(m.nodes[v.value.index]);
    case ReplValue::Kind::kResult: return results[v.index];
    case ReplValue::Kind::kScalar: return Input::of(v.scalar);
    case ReplValue::Kind::kAttrVar: {
      const AttrValue& a = m.attr_vars[v.index];
      if (const auto* i = std::get_if<int64_t>(&a)) return Input::of(Scalar{static_cast<double>(*i), true});
      if (const auto* d = std::get_if<double>(&a)) return Input::of(Scalar{*d, false});
      if (const auto* b = std::get_if<bool>(&a)) return Input::of(Scalar{*b ? 1.0 : 0.0, true});
      return Input::none();
    }
    case ReplValue::Kind::kLiteral:
    case ReplValue::Kind::kSymbol:
    case ReplValue::Kind::kDimList:
    case ReplValue::Kind::kOpName: return Input::none();  // attributes only (sema)
    case ReplValue::Kind::kCoalesce: {
      Input first = resolve(m, v.items[0], results);
      return first.is_none() ? resolve(m, v.items[1], results) : first;
    }
  }
  return Input::none();
}

std::nullopt_t ReplacementBuilder::report(const Match& m, const ReplOp& op,
                                          const std::string& message) {
  const Rule& rule = rules_.rules[m.rule];
  diags_.error(rule_location(rule, op.range, op.loc),
               "rule '" + rule.name + "' applied at '" + m.anchor(rule)->name() + "': " + message);
  return std::nullopt;
}

std::optional<Input> ReplacementBuilder::build_op(const Match& m, const ReplOp& op,
                                                  const std::string& final_name, Node* first_root,
                                                  const std::vector<Input>& results,
                                                  std::vector<Node*>* created) {
  std::vector<Input>& inputs = op_inputs_;
  inputs.clear();
  for (const ReplValue& v : op.operands) inputs.push_back(resolve(m, v, results));
  OpMemo& memo = op_memo(m.rule, op);
  const AttrList* attrs = attrs_of(m, op, memo);
  if (attrs == nullptr) return std::nullopt;
  // Folded values are detached get_attr nodes, so "constant" covers them too.
  const Node* non_constant = nullptr;
  for (const Input& in : inputs) {
    if (in.is_node() && !in.node->is(NodeKind::kGetAttr)) non_constant = in.node;
  }
  // A symbolic attribute (slice's end=T) has no value until the symbol is bound: never folded.
  const bool symbolic = has_symbolic_attr(*op.schema, *attrs);
  if (non_constant == nullptr && fold_ && !symbolic) return fold(m, op, memo, *attrs);
  if (op.must_fold) {
    if (!fold_) return report(m, op, "fold(...) needs constant folding, which is not enabled");
    if (non_constant == nullptr) {
      return report(m, op, "fold(...) is not constant here: an attribute is a symbol");
    }
    return report(m, op,
                  "fold(...) is not constant here: '" + non_constant->name() + "' is not a constant");
  }
  Node* node = place(op, memo, attrs, final_name, first_root, created);
  std::string err;
  if (!memo.type.infer(*node, &node->meta().type, &err)) {
    return report(m, op, op.schema->name + " rejects its inputs: " + err);
  }
  return Input::of(node);
}

Node* ReplacementBuilder::place(const ReplOp& op, OpMemo& memo, const AttrList* attrs,
                                const std::string& final_name, Node* first_root,
                                std::vector<Node*>* created) {
  // Place it right after the latest graph value it reads, or before the match when it reads
  // none. Folded operands are substituted once the op exists, so they can be named after it.
  std::vector<Input>& inputs = op_inputs_;
  Node* latest = nullptr;
  std::vector<std::pair<size_t, Folded*>> pending;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Input& in = inputs[k];
    if (!in.is_node()) continue;
    if (Folded* f = folded_of(in.node)) {
      if (f->materialized == nullptr) {
        pending.push_back({k, f});
        in = Input::none();
        continue;
      }
      in = Input::of(f->materialized);
    }
    if (latest == nullptr || Graph::is_before(latest, in.node)) latest = in.node;
  }
  // Where the replaced value was (the graph keeps its schedule), unless an operand comes later
  // (a multi-output pattern's second result can read values computed after the first root):
  // then right after that operand, skipping the nodes this match just created so that the
  // replacement keeps its written order.
  Node* position = first_root;
  if (latest != nullptr && !Graph::is_before(latest, first_root)) {
    position = latest->next();
    while (position != nullptr &&
           std::find(created->begin(), created->end(), position) != created->end()) {
      position = position->next();
    }
  }
  graph_.set_insert_point(position);
  std::string_view hint = op.name.empty() ? op.schema->name : op.name;
  // The node copies the operands (into itself, mostly) and points at the graph's copy of the
  // attribute list (made now if the graph has none yet). One that will replace a root is
  // named when the root is gone.
  Node* node = graph_.add_interned_call(*op.schema, inputs, attrs);
  if (final_name.empty()) {
    graph_.name_fresh(node, hint, memo.name);
  } else {
    unnamed_calls_.push_back({node, hint, &memo.name});
  }
  graph_.set_insert_point(nullptr);
  created->push_back(node);
  const std::string& owner = final_name.empty() ? node->name() : final_name;
  for (auto [k, f] : pending) {
    const OpSchema& s = *op.schema;
    // Variadic items share one operand name.
    const std::string& operand = s.operands[std::min(k, s.operands.size() - 1)].name;
    graph_.replace_input(node, k, Input::of(materialize(*f, owner + "." + operand, node, created)));
  }
  return node;
}

/// Replacement op `op`'s attributes at match `m`, as the graph's list (AttrTable): its own
/// values, or the schema's defaults where it sets none. nullptr after reporting an error.
/// A rule applied all over a model mostly copies the same attributes (conv-bn folding keeps
/// the conv's stride and padding), so the last list is reused while the `$` variables it
/// was made from hold identical values: coercion is a function of them.
const AttrList* ReplacementBuilder::attrs_of(const Match& m, const ReplOp& op, OpMemo& memo) {
  if (memo.attrs != nullptr && same_attr_vars(m, op, memo.attrs_from)) return memo.attrs;
  // Built in scratch kept across ops and matches: interning copies it only when the graph
  // has no identical list yet.
  AttrList& attrs = op_attrs_;
  attrs.resize(op.schema->attrs.size());
  for (size_t a = 0; a < attrs.size(); ++a) {
    const AttrSpec& spec = op.schema->attrs[a];
    if (a >= op.attrs.size() || op.attrs[a].kind == ReplValue::Kind::kNone) {
      attrs[a] = spec.default_value;
      continue;
    }
    std::string err;
    std::optional<AttrValue> coerced = coerce_attr(spec, attr_value(m, op.attrs[a]), &err);
    if (!coerced) {
      report(m, op, op.schema->name + "'s " + spec.name + ": " + err);
      return nullptr;
    }
    attrs[a] = std::move(*coerced);
  }
  const AttrList* interned = graph_.intern_attrs(attrs);
  if (attrs_from_vars(op)) {
    memo.attrs = interned;
    memo.attrs_from.clear();
    for (const ReplValue& v : op.attrs) {
      if (v.kind == ReplValue::Kind::kAttrVar || v.kind == ReplValue::Kind::kOpName) {
        memo.attrs_from.push_back(attr_value(m, v));
      }
    }
  }
  return interned;
}

/// What the builder remembers about replacement op `op` of rule `rule` between matches.
ReplacementBuilder::OpMemo& ReplacementBuilder::op_memo(uint32_t rule, const ReplOp& op) {
  if (op_memos_.empty()) op_memos_.resize(rules_.rules.size());
  const std::vector<ReplOp>& ops = rules_.rules[rule].replacement;
  std::vector<OpMemo>& memos = op_memos_[rule];
  if (memos.empty()) memos.resize(ops.size());
  return memos[static_cast<size_t>(&op - ops.data())];
}

}  // namespace graft
