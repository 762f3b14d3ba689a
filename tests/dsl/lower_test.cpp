// Lowering checked rules to the engine IR (engine/match/pattern.h): variables, PatNodes and their
// alternatives, attribute checks, conditions, replacement programs and phases, plus what the
// engine cannot run. Most tests compare a compact rendering of the whole rule (see `show`,
// which prints every field) so nothing is left unchecked; a few fields are also asserted
// directly where the rendering would hide a type (int vs float, [2, 2] vs 2).
#include "dsl/lower.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "engine/match/matcher.h"
#include "engine/support/diagnostics.h"
#include "tests/dsl/rules_testing.h"
#include "tests/testing/test_paths.h"

namespace {

using graft::AttrCheck;
using graft::PatValue;
using graft::ReplValue;
using graft::Term;

struct Lowered {
  graft::testing::LoadedRules loaded;
  std::optional<graft::RuleSet> rules;
  std::string diagnostics;  // lowering's only (load must succeed)
};

Lowered lower_text(const std::string& text) {
  Lowered out;
  out.loaded = graft::testing::load_rules(text);
  INFO(out.loaded.diagnostics);
  REQUIRE(out.loaded.set.has_value());
  graft::DiagnosticEngine diags(out.loaded.sources.get());
  out.rules = graft::dsl::lower(*out.loaded.set, *out.loaded.sources, diags);
  out.diagnostics = diags.render();
  return out;
}

/// The rule lowered from `text`, which must lower without diagnostics.
graft::Rule lower_one(const std::string& text) {
  Lowered l = lower_text(text);
  INFO(l.diagnostics);
  REQUIRE(l.rules.has_value());
  CHECK(l.diagnostics.empty());
  REQUIRE(l.rules->rules.size() == 1);
  return l.rules->rules[0];
}

// ** a compact rendering of a lowered rule **
//   %i: PatNode i, #i: replacement op i, $name: attribute variable, 'sym' prefixes dim symbols.

std::string number(double v, bool is_int) { return graft::scalar_to_string({v, is_int}); }

std::string show(const graft::Rule& r, const PatValue& v) {
  switch (v.kind) {
    case PatValue::Kind::kAny:
      return "_";
    case PatValue::Kind::kVar:
      return r.var_names[v.index];
    case PatValue::Kind::kNode:
      return "%" + std::to_string(v.index);
    case PatValue::Kind::kNone:
      return "none";
    case PatValue::Kind::kScalar:
      return number(v.scalar, false) + (v.tolerance > 0 ? "~" + number(v.tolerance, false) : "");
    case PatValue::Kind::kScalarVar:
      return "$" + r.attr_var_names[v.index];
  }
  return "?";
}

std::string show(const graft::Rule& r, const graft::PatAlt& alt) {
  std::string out = alt.schema->name + "(";
  for (size_t i = 0; i < alt.operands.size(); ++i) {
    out += (i == 0 ? "" : ", ") + show(r, alt.operands[i]);
  }
  if (alt.variadic_any) out += alt.operands.empty() ? "*" : ", *";
  out += ")";
  for (const AttrCheck& c : alt.attrs) {
    out += " " + alt.schema->attrs[c.attr].name;
    switch (c.kind) {
      case AttrCheck::Kind::kEquals:
        out += "==" + graft::attr_to_string(c.value);
        if (c.tolerance > 0) out += "~" + number(c.tolerance, false);
        break;
      case AttrCheck::Kind::kBind:
        out += "=$" + r.attr_var_names[c.var];
        break;
      case AttrCheck::Kind::kIn:
        out += " in {";
        for (size_t i = 0; i < c.values.size(); ++i) {
          out += (i == 0 ? "" : ", ") + graft::attr_to_string(c.values[i]);
        }
        out += "}";
        break;
      case AttrCheck::Kind::kRange:
        out += " in " + number(c.lo, false) + ".." + number(c.hi, false);
        break;
      case AttrCheck::Kind::kList:
        out += "=[";
        for (size_t i = 0; i < c.elements.size(); ++i) {
          const AttrCheck& item = c.elements[i];
          out += i == 0 ? "" : ", ";
          out += item.kind == AttrCheck::Kind::kBind     ? "$" + r.attr_var_names[item.var]
                 : item.kind == AttrCheck::Kind::kEquals ? graft::attr_to_string(item.value)
                                                         : "_";
        }
        out += "]";
        break;
      case AttrCheck::Kind::kAny:
        out += "=_";
        break;
    }
  }
  return out;
}

std::string show(const graft::ValueRef& v, const graft::Rule& r) {
  return v.kind == graft::ValueRef::Kind::kVar ? r.var_names[v.index]
                                               : "%" + std::to_string(v.index);
}

std::string show(const graft::Rule& r, const Term& t) {
  auto items = [&](const char* open, const char* close) {
    std::string out = open;
    for (size_t i = 0; i < t.items.size(); ++i) out += (i == 0 ? "" : ", ") + show(r, t.items[i]);
    return out + close;
  };
  switch (t.kind) {
    case Term::Kind::kNumber:
      return number(t.number, t.is_int) + (t.tolerance > 0 ? "~" + number(t.tolerance, false) : "");
    case Term::Kind::kString:
      return "\"" + t.string + "\"";
    case Term::Kind::kBool:
      return t.flag ? "true" : "false";
    case Term::Kind::kDType:
      return graft::dtype_name(t.dtype);
    case Term::Kind::kNone:
      return "none";
    case Term::Kind::kSymbol:
      return "sym" + std::to_string(t.var);
    case Term::Kind::kWildcard:
      return "_";
    case Term::Kind::kEllipsis:
      return "...";
    case Term::Kind::kAttrVar:
      return "$" + r.attr_var_names[t.var];
    case Term::Kind::kUses:
      return "uses(" + show(t.value, r) + ")";
    case Term::Kind::kRank:
      return "rank(" + show(t.value, r) + ")";
    case Term::Kind::kDim:
      return "dim(" + show(t.value, r) + ", " + std::to_string(t.dim) + ")";
    case Term::Kind::kDTypeOf:
      return "dtype(" + show(t.value, r) + ")";
    case Term::Kind::kNameOf:
      return "name(" + show(t.value, r) + ")";
    case Term::Kind::kShapeOf:
      return "shape(" + show(t.value, r) + ")";
    case Term::Kind::kList:
      return items("[", "]");
    case Term::Kind::kSet:
      return items("{", "}");
    case Term::Kind::kRange:
      return show(r, t.items.at(0)) + ".." + show(r, t.items.at(1));
  }
  return "?";
}

const char* show(graft::CmpOp op) {
  static const char* const kOps[] = {"==", "!=", "<", "<=", ">", ">=", "in"};
  return kOps[static_cast<int>(op)];
}

std::string show(const graft::Rule& r, const ReplValue& v) {
  switch (v.kind) {
    case ReplValue::Kind::kNone:
      return "none";
    case ReplValue::Kind::kValue:
      return show(v.value, r);
    case ReplValue::Kind::kResult:
      return "#" + std::to_string(v.index);
    case ReplValue::Kind::kScalar:
      return graft::scalar_to_string(v.scalar);
    case ReplValue::Kind::kAttrVar:
      return "$" + r.attr_var_names[v.index];
    case ReplValue::Kind::kLiteral:
      return graft::attr_to_string(v.literal);
    case ReplValue::Kind::kCoalesce:
      return "(" + show(r, v.items.at(0)) + " ?? " + show(r, v.items.at(1)) + ")";
    case ReplValue::Kind::kSymbol:
      return "sym" + std::to_string(v.index);
    case ReplValue::Kind::kDimList: {
      std::string out = "[";
      for (const ReplValue& item : v.items) out += (out.size() > 1 ? ", " : "") + show(r, item);
      return out + "]";
    }
    case ReplValue::Kind::kOpName:
      return "op_name(%" + std::to_string(v.index) + ")";
  }
  return "?";
}

/// Every field of a lowered rule, one item a line (locations without the file name).
std::string show(const graft::Rule& r) {
  std::ostringstream out;
  auto at = [](const std::string& loc) { return " @" + loc.substr(loc.find(':') + 1); };
  out << "rule " << r.name << " (" << r.loc << ") benefit " << r.benefit << "\n";
  out << "vars:";
  for (size_t i = 0; i < r.var_names.size(); ++i) {
    out << " " << r.var_names[i] << (r.var_optional.at(i) ? "?" : "");
  }
  out << "\nattr vars:";
  for (const std::string& name : r.attr_var_names) out << " $" << name;
  out << "\nsymbols: " << r.symbol_count << "\n";
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const graft::PatNode& n = r.nodes[i];
    out << "%" << i << (n.name.empty() ? "" : " " + n.name) << " = ";
    for (size_t k = 0; k < n.alts.size(); ++k) out << (k == 0 ? "" : " | ") << show(r, n.alts[k]);
    out << (n.commutative ? " commutative" : "") << at(n.loc) << "\n";
  }
  out << "roots:";
  for (uint32_t root : r.roots) out << " %" << root;
  out << "\n";
  for (const graft::Condition& c : r.conditions) {
    out << "where " << (c.negated ? "not " : "");
    if (c.kind == graft::Condition::Kind::kCompare) {
      out << show(r, c.lhs) << " " << show(c.op) << " " << show(r, c.rhs);
    } else if (c.kind == graft::Condition::Kind::kValue) {
      out << "value(" << show(c.values.at(0), r) << ") " << show(c.op) << " " << show(r, c.rhs);
    } else {
      using Kind = graft::Condition::Kind;
      out << (c.kind == Kind::kConst       ? "const("
              : c.kind == Kind::kParameter ? "param("
              : c.kind == Kind::kBuffer    ? "buffer("
                                           : "output(");
      for (size_t i = 0; i < c.values.size(); ++i)
        out << (i == 0 ? "" : ", ") << show(c.values[i], r);
      out << ")";
    }
    out << " '" << c.text << "'" << at(c.loc) << "\n";
  }
  for (size_t i = 0; i < r.replacement.size(); ++i) {
    const graft::ReplOp& op = r.replacement[i];
    out << "#" << i << (op.name.empty() ? "" : " " + op.name) << " = " << op.schema->name << "(";
    for (size_t k = 0; k < op.operands.size(); ++k) {
      out << (k == 0 ? "" : ", ") << show(r, op.operands[k]);
    }
    out << ")";
    REQUIRE(op.attrs.size() == op.schema->attrs.size());
    for (size_t k = 0; k < op.attrs.size(); ++k) {
      if (op.attrs[k].kind != ReplValue::Kind::kNone) {
        out << " " << op.schema->attrs[k].name << "=" << show(r, op.attrs[k]);
      }
    }
    out << (op.must_fold ? " fold" : "") << at(op.loc) << "\n";
  }
  out << "results:";
  for (const ReplValue& v : r.results) out << " " << show(r, v);
  out << "\n";
  return out.str();
}

}  // namespace

TEST_CASE("conv + batch_norm folding lowers to two nodes, conditions and a fold program",
          "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule fuse_conv_bn {\n"
      "  pattern(x, w, b?, mean, var, gamma, beta) {\n"
      "    y = conv2d(x, w, b, stride=$s, padding=$p, dilation=$d, groups=$g)\n"
      "    return batch_norm(y, mean, var, gamma, beta, training=false, eps=$eps)\n"
      "  }\n"
      "  where const(w, b, mean, var, gamma, beta), uses(y) == 1\n"
      "  replacement {\n"
      "    scale = gamma * rsqrt(var + $eps)\n"
      "    return conv2d(x, fold(w * reshape(scale, [-1, 1, 1, 1])),\n"
      "                  fold((b ?? 0) * scale - mean * scale + beta),\n"
      "                  stride=$s, padding=$p, dilation=$d, groups=$g)\n"
      "  }\n"
      "}\n");
  CHECK(show(r) ==
        "rule fuse_conv_bn (test.rules:1) benefit 2\n"
        "vars: x w b? mean var gamma beta\n"
        "attr vars: $s $p $d $g $eps\n"
        "symbols: 0\n"
        "%0 y = conv2d(x, w, b) stride=$s padding=$p dilation=$d groups=$g @3:9\n"
        "%1 = batch_norm(%0, mean, var, gamma, beta) training==False eps=$eps @4:12\n"
        "roots: %1\n"
        "where const(w, b, mean, var, gamma, beta) 'const(w, b, mean, var, gamma, beta)' @6:9\n"
        "where uses(%0) == 1 'uses(y) == 1' @6:46\n"
        "#0 = add(var, $eps) @8:31\n"
        "#1 = rsqrt(#0) @8:21\n"
        "#2 scale = mul(gamma, #1) @8:19\n"
        "#3 = reshape(#2) shape=[-1, 1, 1, 1] fold @9:31\n"
        "#4 = mul(w, #3) fold @9:29\n"
        "#5 = mul((b ?? 0), #2) fold @10:33\n"
        "#6 = mul(mean, #2) fold @10:48\n"
        "#7 = sub(#5, #6) fold @10:41\n"
        "#8 = add(#7, beta) fold @10:56\n"
        "#9 = conv2d(x, #4, #8) stride=$s padding=$p dilation=$d groups=$g @9:12\n"
        "results: #9\n");

  // What the rendering abbreviates.
  CHECK(r.var_optional == std::vector<bool>{false, false, true, false, false, false, false});
  const graft::PatAlt& bn = r.nodes[1].alts.at(0);
  CHECK(bn.attrs.at(0).attr == 0);  // training
  CHECK(bn.attrs.at(0).value == graft::AttrValue{false});
  CHECK(bn.attrs.at(1).attr == 2);  // eps
  CHECK(bn.attrs.at(1).kind == AttrCheck::Kind::kBind);
  CHECK(r.conditions[0].kind == graft::Condition::Kind::kConst);
  CHECK(r.conditions[0].values.at(2).kind == graft::ValueRef::Kind::kVar);
  CHECK(r.conditions[1].lhs.value.kind == graft::ValueRef::Kind::kNode);
  CHECK(r.conditions[1].rhs.is_int);
  CHECK(r.replacement[3].attrs.at(0).literal ==
        graft::AttrValue{std::vector<int64_t>{-1, 1, 1, 1}});
  const ReplValue& coalesce = r.replacement[5].operands.at(0);
  CHECK(coalesce.items.at(1).kind == ReplValue::Kind::kScalar);
  CHECK(coalesce.items.at(1).scalar == graft::Scalar{0, true});
  CHECK(r.replacement[0].attrs.at(0).kind == ReplValue::Kind::kNone);  // alpha: the default
  CHECK(r.loc == "test.rules:1");
  CHECK(r.nodes[0].loc == "test.rules:3:9");
  CHECK(r.conditions[1].loc == "test.rules:6:46");
}

TEST_CASE("a rule keeps its doc comment and the source ranges of its name, ops and results",
          "[dsl][lower]") {
  graft::Rule r = lower_one(R"(/// Removes a double negation.
///  -(-x) is x.
rule double_neg {
  pattern(x) { return neg(neg(x)) }
  replacement { y = relu(x)
                return y }
}
)");
  CHECK(r.doc == " Removes a double negation.\n  -(-x) is x.");
  auto text = [](graft::SourceRange range) {
    const std::string source = "/// Removes a double negation.\n///  -(-x) is x.\nrule double_neg {\n"
                               "  pattern(x) { return neg(neg(x)) }\n  replacement { y = relu(x)\n"
                               "                return y }\n}\n";
    return source.substr(range.begin, range.end - range.begin);
  };
  CHECK(r.range.is_valid());
  CHECK(text(r.range) == "double_neg");
  REQUIRE(r.replacement.size() == 1);
  CHECK(text(r.replacement[0].range) == "relu(x)");
  REQUIRE(r.result_ranges.size() == 1);
  CHECK(text(r.result_ranges[0]) == "y");
}

TEST_CASE("alternatives and op classes become one PatAlt per op", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "opclass acts = relu | relu6 | sigmoid\n"
      "rule alts {\n"
      "  pattern(x) {\n"
      "    y = (relu | relu6)(x)\n"
      "    z = (acts | relu)(y)\n"
      "    return (leaky_relu | elu)(z)\n"
      "  }\n"
      "  replacement { return z }\n"
      "}\n");
  CHECK(show(r) ==
        "rule alts (test.rules:2) benefit 3\n"
        "vars: x\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 y = relu(x) | relu6(x) @4:9\n"
        "%1 z = relu(%0) | relu6(%0) | sigmoid(%0) @5:9\n"
        "%2 = leaky_relu(%1) | elu(%1) @6:12\n"
        "roots: %2\n"
        "results: %1\n");

  // A built-in class: every member, in table order, each bound to its own schema.
  graft::Rule act =
      lower_one("rule act { pattern(x) { return activation(x) } replacement { return x } }\n");
  REQUIRE(act.nodes.size() == 1);
  std::vector<std::string> names;
  for (const graft::PatAlt& alt : act.nodes[0].alts) names.push_back(alt.schema->name);
  CHECK(names == std::vector<std::string>{"relu", "relu6", "hardtanh", "leaky_relu", "elu",
                                          "hardswish", "hardsigmoid", "silu", "sigmoid", "gelu",
                                          "tanh"});
}

TEST_CASE("an attribute binds per alternative, at that op's attribute index", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule a {\n"
      "  pattern(x, y) {\n"
      "    return (add | sub)(x, y, alpha=$a)\n"
      "  }\n"
      "  replacement { return add(x, y, alpha=$a) }\n"
      "}\n");
  CHECK(show(r) ==
        "rule a (test.rules:1) benefit 1\n"
        "vars: x y\n"
        "attr vars: $a\n"
        "symbols: 0\n"
        "%0 = add(x, y) alpha=$a | sub(x, y) alpha=$a @3:12\n"
        "roots: %0\n"
        "#0 = add(x, y) alpha=$a @5:24\n"
        "results: #0\n");
  CHECK_FALSE(r.nodes[0].commutative);  // sub is not commutative
}

TEST_CASE("commutative ops swap unless written 'ordered'; operators keep default attributes",
          "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule c {\n"
      "  pattern(x, y) {\n"
      "    a = mul(x, y)\n"
      "    b = ordered add(a, y)\n"
      "    c = b - x\n"
      "    d = c + a\n"
      "    return -(d / x)\n"
      "  }\n"
      "  replacement { return x }\n"
      "}\n");
  CHECK(show(r) ==
        "rule c (test.rules:1) benefit 6\n"
        "vars: x y\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 a = mul(x, y) commutative @3:9\n"
        "%1 b = add(%0, y) @4:9\n"
        "%2 c = sub(%1, x) alpha==1 @5:11\n"
        "%3 d = add(%2, %0) alpha==1 commutative @6:11\n"
        "%4 = div(%3, x) rounding_mode==None @7:16\n"
        "%5 = neg(%4) @7:12\n"
        "roots: %5\n"
        "results: x\n");
}

TEST_CASE("a name used twice is one PatNode; two identical calls are two", "[dsl][lower]") {
  graft::Rule shared = lower_one(
      "rule shared {\n"
      "  pattern(x) {\n"
      "    s = sigmoid(x)\n"
      "    return s * s\n"
      "  }\n"
      "  replacement { return silu(x) }\n"
      "}\n");
  CHECK(show(shared) ==
        "rule shared (test.rules:1) benefit 2\n"
        "vars: x\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 s = sigmoid(x) @3:9\n"
        "%1 = mul(%0, %0) commutative @4:14\n"
        "roots: %1\n"
        "#0 = silu(x) @6:24\n"
        "results: #0\n");

  graft::Rule separate = lower_one(
      "rule separate {\n"
      "  pattern(x) {\n"
      "    return sigmoid(x) * sigmoid(x)\n"
      "  }\n"
      "  replacement { return silu(x) }\n"
      "}\n");
  CHECK(show(separate) ==
        "rule separate (test.rules:1) benefit 3\n"
        "vars: x\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 = sigmoid(x) @3:12\n"
        "%1 = sigmoid(x) @3:25\n"
        "%2 = mul(%0, %1) commutative @3:23\n"
        "roots: %2\n"
        "#0 = silu(x) @5:24\n"
        "results: #0\n");
}

TEST_CASE("operands: '_', none, omitted optionals, scalars with tolerance and '$' scalars",
          "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule operands {\n"
      "  pattern(x) {\n"
      "    a = conv2d(x, _, none)\n"
      "    b = add(a, 0.5 ~ 1e-3)\n"
      "    c = mul(b, $c)\n"
      "    d = sub(c, 2)\n"
      "    return batch_norm(d, _)\n"
      "  }\n"
      "  replacement { return mul(x, $c) }\n"
      "}\n");
  CHECK(show(r) ==
        "rule operands (test.rules:1) benefit 5\n"
        "vars: x\n"
        "attr vars: $c\n"
        "symbols: 0\n"
        "%0 a = conv2d(x, _, none) @3:9\n"
        "%1 b = add(%0, 0.5~0.001) commutative @4:9\n"
        "%2 c = mul(%1, $c) commutative @5:9\n"
        "%3 d = sub(%2, 2.0) @6:9\n"  // PatValue keeps no int/float distinction

        "%4 = batch_norm(%3, _, none, none, none) @7:12\n"
        "roots: %4\n"
        "#0 = mul(x, $c) @9:24\n"
        "results: #0\n");
  const PatValue& half = r.nodes[1].alts[0].operands.at(1);
  CHECK(half.kind == PatValue::Kind::kScalar);
  CHECK(half.scalar == 0.5);
  CHECK(half.tolerance == 1e-3);
  CHECK(r.nodes[3].alts[0].operands.at(1).tolerance == 0);
  CHECK(r.nodes[2].alts[0].operands.at(1).kind == PatValue::Kind::kScalarVar);
  CHECK(r.replacement[0].operands.at(1).kind == ReplValue::Kind::kAttrVar);
}

TEST_CASE("attribute checks: literals coerced, sets, ranges, tolerances, '_'", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule attrs {\n"
      "  pattern(x, w) {\n"
      "    c = conv2d(x, w, stride=2, padding=_, dilation in {1, [2, 3]}, groups in 1..4)\n"
      "    l = leaky_relu(c, negative_slope=0.01 ~ 1e-4)\n"
      "    h = hardtanh(l, min_val=0, max_val in 5.5..6)\n"
      "    return gelu(h, approximate=\"tanh\")\n"
      "  }\n"
      "  replacement { return h }\n"
      "}\n");
  CHECK(show(r) ==
        "rule attrs (test.rules:1) benefit 4\n"
        "vars: x w\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 c = conv2d(x, w, none) stride==[2, 2] dilation in {[1, 1], [2, 3]} groups in 1.0..4.0 "
        "@3:9\n"
        "%1 l = leaky_relu(%0) negative_slope==0.01~0.0001 @4:9\n"
        "%2 h = hardtanh(%1) min_val==0.0 max_val in 5.5..6.0 @5:9\n"
        "%3 = gelu(%2) approximate=='tanh' @6:12\n"
        "roots: %3\n"
        "results: %2\n");
  const std::vector<AttrCheck>& conv = r.nodes[0].alts[0].attrs;
  REQUIRE(conv.size() == 3);
  CHECK(conv[0].kind == AttrCheck::Kind::kEquals);
  CHECK(conv[0].value == graft::AttrValue{std::vector<int64_t>{2, 2}});
  CHECK(conv[1].kind == AttrCheck::Kind::kIn);
  CHECK(conv[1].attr == 2);
  CHECK(conv[1].values.at(0) == graft::AttrValue{std::vector<int64_t>{1, 1}});
  CHECK(conv[2].kind == AttrCheck::Kind::kRange);
  CHECK(conv[2].lo == 1);
  CHECK(conv[2].hi == 4);
  const AttrCheck& slope = r.nodes[1].alts[0].attrs.at(0);
  CHECK(slope.value == graft::AttrValue{0.01});
  CHECK(slope.tolerance == 1e-4);
  CHECK(r.nodes[2].alts[0].attrs.at(0).value == graft::AttrValue{0.0});  // int 0 -> float
}

TEST_CASE("a variadic operand: listed items, or any number with '_'", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule cats {\n"
      "  pattern(a, b) {\n"
      "    c = cat([a, relu(b), _], dim=1)\n"
      "    return c - cat(_, dim=$d)\n"
      "  }\n"
      "  replacement { return cat([b, a, c], dim=$d) }\n"
      "}\n");
  CHECK(show(r) ==
        "rule cats (test.rules:1) benefit 4\n"
        "vars: a b\n"
        "attr vars: $d\n"
        "symbols: 0\n"
        "%0 = relu(b) @3:17\n"
        "%1 c = cat(a, %0, _) dim==1 @3:9\n"
        "%2 = cat(*) dim=$d @4:16\n"
        "%3 = sub(%1, %2) alpha==1 @4:14\n"
        "roots: %3\n"
        "#0 = cat(b, a, %1) dim=$d @6:24\n"
        "results: #0\n");
  CHECK_FALSE(r.nodes[1].alts[0].variadic_any);
  CHECK(r.nodes[2].alts[0].variadic_any);
  CHECK(r.nodes[2].alts[0].operands.empty());
}

TEST_CASE("a multi-output pattern: cse_relu", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "/// Two relus of the same value are one relu.\n"
      "rule cse_relu {\n"
      "  pattern(x) {\n"
      "    a = relu(x)\n"
      "    b = relu(x)\n"
      "    return a, b\n"
      "  }\n"
      "  replacement {\n"
      "    r = relu(x)\n"
      "    return r, r\n"
      "  }\n"
      "}\n");
  CHECK(show(r) ==
        "rule cse_relu (test.rules:2) benefit 2\n"
        "vars: x\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 a = relu(x) @4:9\n"
        "%1 b = relu(x) @5:9\n"
        "roots: %0 %1\n"
        "#0 r = relu(x) @9:9\n"
        "results: #0 #0\n");
}

TEST_CASE("outputs connected through a shared node are accepted", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule two {\n"
      "  pattern(x, y) {\n"
      "    s = x + y\n"
      "    a = relu(s)\n"
      "    b = sigmoid(s)\n"
      "    return a, b\n"
      "  }\n"
      "  replacement { return relu(x + y), sigmoid(x + y) }\n"
      "}\n");
  CHECK(r.roots == std::vector<uint32_t>{1, 2});
  REQUIRE(r.replacement.size() == 4);
  CHECK(r.results.size() == 2);
}

TEST_CASE("where conditions: predicates, dtypes, shapes with symbols, '$' comparisons",
          "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule conds {\n"
      "  pattern(x, w) {\n"
      "    y = conv2d(x, w, stride=$s, dilation=$d, groups=$g)\n"
      "    return gelu(leaky_relu(y, negative_slope=$a), approximate=$m)\n"
      "  }\n"
      "  where not output(y), rank(x) in {3, 4}, dtype(x) in {f16, bfloat16}\n"
      "  where dtype(x) == dtype(w), dtype(w) != f32\n"
      "  where shape(x) == [N, C, _, _], shape(w) == [..., C], dim(w, -1) == dim(x, 1)\n"
      "  where dim(y, 0) == N, not shape(y) == shape(x), rank(w) >= 2, uses(y) in 1..2\n"
      "  where $g in 1..4, $s == $d, $g != 2, $s == [1, 1], $a == 0.2 ~ 1e-3\n"
      "  where $m == \"tanh\", $g in {1, 2}, $a < 1\n"
      "  replacement { return y }\n"
      "}\n");
  std::string expected =
      "rule conds (test.rules:1) benefit 3\n"
      "vars: x w\n"
      "attr vars: $s $d $g $a $m\n"
      "symbols: 2\n"
      "%0 y = conv2d(x, w, none) stride=$s dilation=$d groups=$g @3:9\n"
      "%1 = leaky_relu(%0) negative_slope=$a @4:17\n"
      "%2 = gelu(%1) approximate=$m @4:12\n"
      "roots: %2\n"
      "where not output(%0) 'not output(y)' @6:9\n"
      "where rank(x) in {3, 4} 'rank(x) in {3, 4}' @6:24\n"
      "where dtype(x) in {float16, bfloat16} 'dtype(x) in {f16, bfloat16}' @6:43\n"
      "where dtype(x) == dtype(w) 'dtype(x) == dtype(w)' @7:9\n"
      "where dtype(w) != float32 'dtype(w) != f32' @7:31\n"
      "where shape(x) == [sym0, sym1, _, _] 'shape(x) == [N, C, _, _]' @8:9\n"
      "where shape(w) == [..., sym1] 'shape(w) == [..., C]' @8:35\n"
      "where dim(w, -1) == dim(x, 1) 'dim(w, -1) == dim(x, 1)' @8:57\n"
      "where dim(%0, 0) == sym0 'dim(y, 0) == N' @9:9\n"
      "where not shape(%0) == shape(x) 'not shape(y) == shape(x)' @9:25\n"
      "where rank(w) >= 2 'rank(w) >= 2' @9:51\n"
      "where uses(%0) in 1..2 'uses(y) in 1..2' @9:65\n"
      "where $g in 1..4 '$g in 1..4' @10:9\n"
      "where $s == $d '$s == $d' @10:21\n"
      "where $g != 2 '$g != 2' @10:31\n"
      "where $s == [1, 1] '$s == [1, 1]' @10:40\n"
      "where $a == 0.2~0.001 '$a == 0.2 ~ 1e-3' @10:54\n"
      "where $m == \"tanh\" '$m == \"tanh\"' @11:9\n"
      "where $g in {1, 2} '$g in {1, 2}' @11:23\n"
      "where $a < 1 '$a < 1' @11:37\n"
      "results: %0\n";
  CHECK(show(r) == expected);
  CHECK(r.conditions[0].kind == graft::Condition::Kind::kOutput);
  CHECK(r.conditions[0].negated);
  CHECK(r.conditions[2].rhs.items.at(1).dtype == graft::DType::kBFloat16);
  CHECK(r.conditions[5].rhs.items.at(0).kind == Term::Kind::kSymbol);
  CHECK(r.conditions[11].rhs.items.at(0).is_int);  // uses(y) in 1..2
}

TEST_CASE("where conditions on constants: param, buffer and value", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule consts {\n"
      "  pattern(x, w, b?, m) {\n"
      "    return batch_norm(conv2d(x, w, b), m, m)\n"
      "  }\n"
      "  where param(w, b), buffer(m), not param(m)\n"
      "  where value(w) >= -1, value(b) == 0 ~ 1e-6, value(m) in {0, 1}, not value(m) in 0..0.5\n"
      "  replacement { return x }\n"
      "}\n");
  std::string expected =
      "where param(w, b) 'param(w, b)' @5:9\n"
      "where buffer(m) 'buffer(m)' @5:22\n"
      "where not param(m) 'not param(m)' @5:33\n"
      "where value(w) >= -1 'value(w) >= -1' @6:9\n"
      "where value(b) == 0~1e-06 'value(b) == 0 ~ 1e-6' @6:25\n"
      "where value(m) in {0, 1} 'value(m) in {0, 1}' @6:47\n"
      "where not value(m) in 0..0.5 'not value(m) in 0..0.5' @6:67\n";
  std::string shown = show(r);
  CHECK(shown.substr(shown.find("where "), shown.find("results:") - shown.find("where ")) ==
        expected);
  CHECK(r.conditions[0].kind == graft::Condition::Kind::kParameter);
  CHECK(r.conditions[1].kind == graft::Condition::Kind::kBuffer);
  CHECK(r.conditions[2].negated);
  CHECK(r.conditions[3].kind == graft::Condition::Kind::kValue);
  CHECK(r.conditions[3].op == graft::CmpOp::kGe);
  CHECK(r.conditions[4].rhs.tolerance == 1e-6);
  CHECK(r.conditions[6].rhs.kind == Term::Kind::kRange);
}

TEST_CASE("where: none and bool literals; 'ordered' alternatives never swap", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule lits {\n"
      "  pattern(x, y) {\n"
      "    d = div(x, y, rounding_mode=$r)\n"
      "    e = dropout(d, training=$t)\n"
      "    return ordered (add | mul)(e, x)\n"
      "  }\n"
      "  where $r == none, $t == false, $r in {\"floor\", none}\n"
      "  replacement { return x }\n"
      "}\n");
  CHECK(show(r) ==
        "rule lits (test.rules:1) benefit 3\n"
        "vars: x y\n"
        "attr vars: $r $t\n"
        "symbols: 0\n"
        "%0 d = div(x, y) rounding_mode=$r @3:9\n"
        "%1 e = dropout(%0) training=$t @4:9\n"
        "%2 = add(%1, x) | mul(%1, x) @5:12\n"
        "roots: %2\n"
        "where $r == none '$r == none' @7:9\n"
        "where $t == false '$t == false' @7:21\n"
        "where $r in {\"floor\", none} '$r in {\"floor\", none}' @7:34\n"
        "results: x\n");
}

TEST_CASE("replacement: dim symbols bound by where become attribute values", "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule ln {\n"
      "  pattern(x, w) {\n"
      "    return mul(x, w)\n"
      "  }\n"
      "  where shape(x) == [N, ..., D], dim(w, 0) == D\n"
      "  replacement { return layer_norm(x, [D], w) + sum(x, [1, D]) }\n"
      "}\n");
  REQUIRE(r.replacement.size() == 3);
  CHECK(r.symbol_count == 2);
  CHECK(show(r, r.replacement[0].attrs.at(0)) == "[sym1]");
  CHECK(show(r, r.replacement[1].attrs.at(0)) == "[1, sym1]");
  // Only D is read by the replacement: matches must bind it to a concrete size, not N.
  CHECK(r.replacement_symbols == std::vector<uint32_t>{1});
}

TEST_CASE("replacement: op_name(a) is the name of the op PatNode a matched", "[dsl][lower]") {
  // `$s` binds positionally: leaky_relu's negative_slope, elu's alpha.
  graft::Rule r = lower_one(
      "opclass with_alpha = leaky_relu | elu\n"
      "rule post {\n"
      "  pattern(x, w) {\n"
      "    y = linear(x, w)\n"
      "    a = with_alpha(y, $s)\n"
      "    return a\n"
      "  }\n"
      "  replacement { return linear_post(x, w, activation=op_name(a), alpha=$s) }\n"
      "}\n");
  CHECK(show(r) ==
        "rule post (test.rules:2) benefit 2\n"
        "vars: x w\n"
        "attr vars: $s\n"
        "symbols: 0\n"
        "%0 y = linear(x, w, none) @4:9\n"
        "%1 a = leaky_relu(%0) negative_slope=$s | elu(%0) alpha=$s @5:9\n"
        "roots: %1\n"
        "#0 = linear_post(x, w, none, none) activation=op_name(%1) alpha=$s @8:24\n"
        "results: #0\n");
  CHECK(r.replacement[0].attrs.at(0).kind == ReplValue::Kind::kOpName);
}

TEST_CASE("replacement: omitted operands, default and coerced attributes, renames",
          "[dsl][lower]") {
  graft::Rule r = lower_one(
      "rule repl {\n"
      "  pattern(x, w, b?) {\n"
      "    y = conv2d(x, w, b, groups=$g)\n"
      "    return relu(y)\n"
      "  }\n"
      "  replacement {\n"
      "    alias = x\n"
      "    c = conv2d(alias, w, stride=2, padding=[1, 0], groups=$g)\n"
      "    d = -c / 2.0\n"
      "    e = hardtanh(d, min_val=0, max_val=6)\n"
      "    return conv2d_post(x, w, b, e, activation=\"relu\")\n"
      "  }\n"
      "}\n");
  CHECK(show(r) ==
        "rule repl (test.rules:1) benefit 2\n"
        "vars: x w b?\n"
        "attr vars: $g\n"
        "symbols: 0\n"
        "%0 y = conv2d(x, w, b) groups=$g @3:9\n"
        "%1 = relu(%0) @4:12\n"
        "roots: %1\n"
        "#0 c = conv2d(x, w, none) stride=[2, 2] padding=[1, 0] groups=$g @8:9\n"
        "#1 = neg(#0) @9:9\n"
        "#2 d = div(#1, 2.0) @9:12\n"
        "#3 e = hardtanh(#2) min_val=0.0 max_val=6.0 @10:9\n"
        "#4 = conv2d_post(x, w, b, #3) activation='relu' @11:12\n"
        "results: #4\n");
  CHECK(r.replacement[0].attrs.at(0).kind == ReplValue::Kind::kLiteral);
  CHECK(r.replacement[0].attrs.at(0).literal == graft::AttrValue{std::vector<int64_t>{2, 2}});
  CHECK(r.replacement[0].operands.at(2).kind == ReplValue::Kind::kNone);
  CHECK(r.replacement[2].operands.at(1).scalar == graft::Scalar{2.0, false});
  CHECK(r.replacement[3].attrs.at(0).literal == graft::AttrValue{0.0});
}

TEST_CASE("phases of the sample file, find_rule, and a test's plan", "[dsl][lower]") {
  std::string path = graft::testing::source_path("tests/dsl/data/fusion_sample.rules");
  graft::testing::LoadedRules loaded =
      graft::testing::load_rules({{path, graft::testing::read_file(path)}}, path);
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  graft::DiagnosticEngine diags(loaded.sources.get());
  std::optional<graft::RuleSet> rules = graft::dsl::lower(*loaded.set, *loaded.sources, diags);
  INFO(diags.render());
  REQUIRE(rules.has_value());
  CHECK(diags.diagnostics().empty());

  // Every rule of the sample lowers, in the set's order.
  REQUIRE(rules->rules.size() == loaded.set->rules().size());
  for (size_t i = 0; i < rules->rules.size(); ++i) {
    CHECK(rules->rules[i].name == loaded.set->rules()[i].name);
    CHECK(rules->rules[i].benefit == loaded.set->rules()[i].benefit);
  }
  CHECK(rules->find_rule("fuse_conv_bn") == 4);
  CHECK(rules->find_rule("remove_dropout") == 0);
  CHECK(rules->find_rule("nope") == -1);
  CHECK(rules->rules[6].loc.ends_with("fusion_sample.rules:81"));

  REQUIRE(rules->phases.size() == 3);
  CHECK(rules->phases[0].name == "cleanup");
  CHECK(rules->phases[0].mode == graft::PhaseMode::kOnce);
  CHECK(rules->phases[0].max_iterations == 1);
  CHECK(rules->phases[0].rules == std::vector<uint32_t>{0, 1});
  CHECK(rules->phases[1].name == "algebra");
  CHECK(rules->phases[1].mode == graft::PhaseMode::kFixpoint);
  CHECK(rules->phases[1].max_iterations == 8);
  CHECK(rules->phases[1].rules == std::vector<uint32_t>{2, 3, 4});
  CHECK(rules->phases[2].name == "lowering");
  CHECK(rules->phases[2].rules == std::vector<uint32_t>{5, 6});

  // gelu_erf's tolerances reach the scalar operands.
  const graft::Rule& gelu = rules->rules[3];
  REQUIRE(gelu.nodes.size() == 5);
  CHECK(show(gelu, gelu.nodes[0].alts[0]) == "mul(x, 0.5~1e-06)");
  CHECK(show(gelu, gelu.nodes[1].alts[0]) == "div(x, 1.4142135~1e-06) rounding_mode==None");

  // A test's plan: only the rules it applies, renumbered.
  const graft::dsl::CheckedTest& test = loaded.set->tests().at(0);
  REQUIRE(test.name == "fuse_conv_bn");
  std::optional<graft::RuleSet> plan =
      graft::dsl::lower_plan(*loaded.set, test.plan, *loaded.sources, diags);
  REQUIRE(plan.has_value());
  REQUIRE(plan->rules.size() == 1);
  CHECK(plan->rules[0].name == "fuse_conv_bn");
  REQUIRE(plan->phases.size() == 1);
  CHECK(plan->phases[0].mode == graft::PhaseMode::kFixpoint);
  CHECK(plan->phases[0].max_iterations == graft::dsl::kDefaultFixpointMax);
  CHECK(plan->phases[0].rules == std::vector<uint32_t>{0});

  // A plan of a declared phase keeps its settings; rules keep the set's relative order.
  std::optional<graft::RuleSet> lowering = graft::dsl::lower_plan(
      *loaded.set, {loaded.set->phases()[2], loaded.set->phases()[0]}, *loaded.sources, diags);
  REQUIRE(lowering.has_value());
  REQUIRE(lowering->rules.size() == 4);
  CHECK(lowering->rules[0].name == "remove_dropout");
  CHECK(lowering->rules[3].name == "conv_relu");
  CHECK(lowering->phases[0].name == "lowering");
  CHECK(lowering->phases[0].rules == std::vector<uint32_t>{2, 3});
  CHECK(lowering->phases[1].rules == std::vector<uint32_t>{0, 1});
}

TEST_CASE("the example rule file lowers", "[dsl][lower]") {
  std::string path = graft::testing::source_path("examples/rules/fuse.rules");
  graft::testing::LoadedRules loaded =
      graft::testing::load_rules({{path, graft::testing::read_file(path)}}, path);
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  graft::DiagnosticEngine diags(loaded.sources.get());
  std::optional<graft::RuleSet> rules = graft::dsl::lower(*loaded.set, *loaded.sources, diags);
  INFO(diags.render());
  REQUIRE(rules.has_value());
  CHECK(rules->rules.size() == 2);
  REQUIRE(rules->phases.size() == 1);
  CHECK(rules->phases[0].rules == std::vector<uint32_t>{0, 1});
  // Without fold(...), the same ops are lowered, none of them required to fold.
  CHECK(rules->rules[0].replacement.size() == 10);
  for (const graft::ReplOp& op : rules->rules[0].replacement) CHECK_FALSE(op.must_fold);
}

TEST_CASE("unlisted rules run in the implicit default phase", "[dsl][lower]") {
  Lowered l = lower_text(
      "rule a { pattern(x) { return relu(relu(x)) } replacement { return relu(x) } }\n"
      "rule b { pattern(x) { return neg(neg(x)) } replacement { return x } }\n"
      "phase first once { b }\n");
  REQUIRE(l.rules.has_value());
  REQUIRE(l.rules->phases.size() == 2);
  CHECK(l.rules->phases[0].rules == std::vector<uint32_t>{1});
  CHECK(l.rules->phases[1].name == "default");
  CHECK(l.rules->phases[1].mode == graft::PhaseMode::kFixpoint);
  CHECK(l.rules->phases[1].max_iterations == 32);
  CHECK(l.rules->phases[1].rules == std::vector<uint32_t>{0});
}

TEST_CASE("a pattern whose outputs share no input lowers to one rule of two parts",
          "[dsl][lower]") {
  // torch.fx's `def pattern(a, b): return relu(a), sigmoid(b)`: the matcher combines the parts.
  Lowered l = lower_text(
      "rule two {\n"
      "  pattern(x, y) {\n"
      "    a = relu(x)\n"
      "    b = sigmoid(y)\n"
      "    return a, b\n"
      "  }\n"
      "  replacement { return tanh(x), exp(y) }\n"
      "}\n");
  INFO(l.diagnostics);
  REQUIRE(l.rules.has_value());
  CHECK(l.diagnostics.empty());
  CHECK(show(l.rules->rules[0]) ==
        "rule two (test.rules:1) benefit 2\n"
        "vars: x y\n"
        "attr vars:\n"
        "symbols: 0\n"
        "%0 a = relu(x) @3:9\n"
        "%1 b = sigmoid(y) @4:9\n"
        "roots: %0 %1\n"
        "#0 = tanh(x) @7:24\n"
        "#1 = exp(y) @7:33\n"
        "results: #0 #1\n");
  graft::CompiledRules compiled(*l.rules);
  CHECK(compiled.bind_plan(0).parts == 2);
  CHECK_THAT(compiled.dump(), Catch::Contains("  two: n0=c0 n1=c1; 4 slots; choices; 2 parts\n"));
}

TEST_CASE("error: a pattern returning a parameter", "[dsl][lower]") {
  // Sema rejects it first, in its own words.
  const std::string text =
      "rule id {\n"
      "  pattern(x) {\n"
      "    y = relu(x)\n"
      "    return y\n"
      "  }\n"
      "  replacement { return x }\n"
      "}\n";
  graft::testing::LoadedRules rejected =
      graft::testing::load_rules("rule id { pattern(x) { return x } replacement { return x } }\n");
  CHECK_FALSE(rejected.set.has_value());
  CHECK(rejected.diagnostics.find("test.rules:1:31: error: the pattern returns its parameter 'x'; "
                                  "a pattern must match at least one op") != std::string::npos);

  // Lowering does not rely on that: point the checked `return y` at the parameter instead.
  graft::testing::LoadedRules loaded = graft::testing::load_rules(text);
  REQUIRE(loaded.set.has_value());
  const graft::dsl::ast::PatternBlock& pattern = *loaded.set->rules()[0].decl->pattern;
  auto* returned = static_cast<graft::dsl::ast::NameExpr*>(pattern.body->ret->values[0]);
  returned->decl = pattern.params[0];
  graft::DiagnosticEngine diags(loaded.sources.get());
  CHECK_FALSE(graft::dsl::lower(*loaded.set, *loaded.sources, diags).has_value());
  CHECK(diags.render() ==
        "test.rules:4:12: error: a pattern must return the result of an op\n"
        " 4 |     return y\n"
        "   |            ^\n");
}

TEST_CASE("error: a parameter the pattern never matches cannot be used", "[dsl][lower]") {
  Lowered l = lower_text(
      "rule unbound {\n"
      "  pattern(x, w) {\n"
      "    return relu(x)\n"
      "  }\n"
      "  where const(w)\n"
      "  replacement { return w + x }\n"
      "}\n"
      "rule fine { pattern(x) { return relu(x) } replacement { return x } }\n");
  CHECK_FALSE(l.rules.has_value());
  CHECK(l.diagnostics ==
        "test.rules:5:15: error: parameter 'w' does not occur in the pattern, so the engine "
        "cannot bind it\n"
        " 5 |   where const(w)\n"
        "   |               ^\n");
}

TEST_CASE("error: a dim compared with a pattern value is not supported", "[dsl][lower]") {
  Lowered l = lower_text(
      "rule d {\n"
      "  pattern(x, w) { return matmul(x, w) }\n"
      "  where dim(x, 1) == w\n"
      "  replacement { return matmul(x, w) }\n"
      "}\n");
  CHECK_FALSE(l.rules.has_value());
  CHECK(l.diagnostics ==
        "test.rules:3:22: error: comparing a dim with the pattern value 'w' (a dim symbol needs "
        "a new name) is not supported by the engine yet\n"
        " 3 |   where dim(x, 1) == w\n"
        "   |                      ^\n");
}
