// RuleSet::dump: the lowered rule IR as text, for `rewrite check --dump` and golden tests.
// Pattern nodes are numbered n0, n1, … (operands refer only to earlier ones), replacement ops
// r0, r1, …; everything else is printed as the rule text would write it, so that a dump reads
// like a normalised rule file (docs/matcher.md#reading-the-dumps).
#include <fmt/format.h>

#include "engine/match/attr_check.h"
#include "engine/match/pattern.h"

namespace graft {
namespace {

std::string pat_value_text(const Rule& rule, const PatValue& v) {
  switch (v.kind) {
    case PatValue::Kind::kAny:
      return "_";
    case PatValue::Kind::kVar:
      return rule.var_names[v.index];
    case PatValue::Kind::kNode:
      return "n" + std::to_string(v.index);
    case PatValue::Kind::kNone:
      return "none";
    case PatValue::Kind::kScalar:
      return fmt::format("{}", v.scalar) + (v.tolerance > 0 ? fmt::format("~{}", v.tolerance) : "");
    case PatValue::Kind::kScalarVar:
      return "$" + rule.attr_var_names[v.index];
  }
  return "?";
}

/// `conv2d(x, w, none) groups=1 stride=$s`; a variadic op whose items are not listed ends in
/// `...`.
std::string alt_text(const Rule& rule, const PatAlt& alt) {
  std::string text = alt.schema->name + "(";
  for (size_t i = 0; i < alt.operands.size(); ++i) {
    text += (i > 0 ? ", " : "") + pat_value_text(rule, alt.operands[i]);
  }
  if (alt.variadic_any) text += alt.operands.empty() ? "..." : ", ...";
  text += ")";
  for (const AttrCheck& check : alt.attrs) {
    text += " " + attr_check_text(*alt.schema, check, &rule.attr_var_names);
  }
  return text;
}

std::string value_ref_text(const Rule& rule, const ValueRef& v) {
  return v.kind == ValueRef::Kind::kVar ? rule.var_names[v.index] : "n" + std::to_string(v.index);
}

std::string repl_value_text(const Rule& rule, const ReplValue& v) {
  auto items = [&](const char* open, const char* separator, const char* close) {
    std::string text = open;
    for (size_t i = 0; i < v.items.size(); ++i) {
      text += (i > 0 ? separator : "") + repl_value_text(rule, v.items[i]);
    }
    return text + close;
  };
  switch (v.kind) {
    case ReplValue::Kind::kNone:
      return "none";
    case ReplValue::Kind::kValue:
      return value_ref_text(rule, v.value);
    case ReplValue::Kind::kResult:
      return "r" + std::to_string(v.index);
    case ReplValue::Kind::kScalar:
      return scalar_to_string(v.scalar);
    case ReplValue::Kind::kAttrVar:
      return "$" + rule.attr_var_names[v.index];
    case ReplValue::Kind::kLiteral:
      return attr_to_string(v.literal);
    case ReplValue::Kind::kCoalesce:
      return items("", " ?? ", "");
    case ReplValue::Kind::kSymbol:
      return "sym" + std::to_string(v.index);
    case ReplValue::Kind::kDimList:
      return items("[", ", ", "]");
    case ReplValue::Kind::kOpName:
      return "op_name(n" + std::to_string(v.index) + ")";
  }
  return "?";
}

std::string repl_op_text(const Rule& rule, const ReplOp& op) {
  std::string text = (op.must_fold ? "fold " : "") + op.schema->name + "(";
  for (size_t i = 0; i < op.operands.size(); ++i) {
    text += (i > 0 ? ", " : "") + repl_value_text(rule, op.operands[i]);
  }
  text += ")";
  for (size_t a = 0; a < op.attrs.size() && a < op.schema->attrs.size(); ++a) {
    if (op.attrs[a].kind == ReplValue::Kind::kNone) continue;
    text += " " + op.schema->attrs[a].name + "=" + repl_value_text(rule, op.attrs[a]);
  }
  return text;
}

std::string name_suffix(const std::string& name) { return name.empty() ? "" : " '" + name + "'"; }

void dump_pattern(const Rule& rule, std::string& out) {
  std::string vars;
  for (size_t v = 0; v < rule.var_names.size(); ++v) {
    vars += (v > 0 ? ", " : "") + rule.var_names[v] + (rule.var_optional[v] ? "?" : "");
  }
  out += "  params (" + vars + ")";
  for (const std::string& a : rule.attr_var_names) out += " $" + a;
  if (rule.symbol_count > 0) out += fmt::format(" symbols {}", rule.symbol_count);
  out += "\n";
  for (size_t n = 0; n < rule.nodes.size(); ++n) {
    const PatNode& node = rule.nodes[n];
    std::string alts;
    for (size_t a = 0; a < node.alts.size(); ++a) {
      alts += (a > 0 ? " | " : "") + alt_text(rule, node.alts[a]);
    }
    out += fmt::format("  n{}{} = {}{}\n", n, name_suffix(node.name),
                       node.commutative ? "commutative " : "", alts);
  }
  out += "  return";
  for (uint32_t root : rule.roots) out += " n" + std::to_string(root);
  out += "\n";
  for (const Condition& c : rule.conditions) out += "  where " + c.text + "\n";
}

void dump_replacement(const Rule& rule, std::string& out) {
  for (size_t r = 0; r < rule.replacement.size(); ++r) {
    const ReplOp& op = rule.replacement[r];
    out += fmt::format("  r{}{} = {}\n", r, name_suffix(op.name), repl_op_text(rule, op));
  }
  out += "  yield";
  for (const ReplValue& v : rule.results) out += " " + repl_value_text(rule, v);
  out += "\n";
}

}  // namespace

std::string RuleSet::dump() const {
  std::string out;
  for (const Rule& rule : rules) {
    out += fmt::format("rule {} ({}) benefit {}\n", rule.name, rule.loc, rule.benefit);
    dump_pattern(rule, out);
    dump_replacement(rule, out);
  }
  for (const Phase& phase : phases) {
    out += "phase " + phase.name + " " +
           (phase.mode == PhaseMode::kOnce ? std::string("once")
                                           : fmt::format("fixpoint(max={})", phase.max_iterations));
    out += ":";
    for (uint32_t r : phase.rules) out += " " + rules[r].name;
    out += "\n";
  }
  return out;
}

}  // namespace graft
