// The random rule-set generator (see random_rules.h). Each template writes one rule (or a pair
// that undoes itself) over the unary activations and the arithmetic the random graphs contain,
// so that most rule sets match something. The rules need not preserve semantics: only the
// driver's termination and the graph's validity are under test.
#include "tests/property/random_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/property/rng.h"

namespace graft::testing {
namespace {

// Shape-preserving float ops that the random graphs use, so patterns find matches.
const char* const kUnary[] = {"relu", "sigmoid",   "tanh", "relu6", "silu",
                              "gelu", "hardswish", "neg",  "abs"};
const char* const kBinary[] = {"add", "mul", "sub"};

class RuleGen {
 public:
  explicit RuleGen(uint64_t seed) : rng_(seed) {}

  std::string run() {
    int count = 1 + rng_.below(8);
    while (static_cast<int>(names_.size()) < count) add_rule();
    add_phases();
    return text_;
  }

 private:
  std::string unary() { return rng_.pick(kUnary); }
  std::string binary() { return rng_.pick(kBinary); }
  /// `(a | b | …)` of 2 to 5 distinct unary ops.
  std::string alternatives() {
    std::vector<std::string> ops;
    int n = 2 + rng_.below(4);
    while (static_cast<int>(ops.size()) < n) {
      std::string op = unary();
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    }
    return fmt::format("({})", fmt::join(ops, " | "));
  }

  /// Adds `rule NAME { BODY }` with an optional benefit; returns the name.
  std::string rule(const std::string& pattern, const std::string& replacement,
                   const std::string& where = "") {
    std::string name = "r" + std::to_string(names_.size());
    names_.push_back(name);
    text_ += fmt::format("rule {} {{\n  pattern{}\n", name, pattern);
    if (!where.empty()) text_ += "  where " + where + "\n";
    if (rng_.chance(0.15)) text_ += fmt::format("  benefit {}\n", rng_.below(10));
    text_ += fmt::format("  replacement {{ {} }}\n}}\n", replacement);
    return name;
  }

  void add_rule() {
    std::string u = unary(), v = unary();
    switch (rng_.below(14)) {
      case 0:  // one op into another; with the reverse rule a ping-pong
        rule(fmt::format("(x) {{ return {}(x) }}", u), fmt::format("return {}(x)", v));
        if (rng_.chance(0.5))
          rule(fmt::format("(x) {{ return {}(x) }}", v), fmt::format("return {}(x)", u));
        break;
      case 1:  // a pair of identities that undo each other: x * 1 <-> x + 0
        rule("(x) { return x * 1.0 }", "return x + 0.0");
        rule("(x) { return x + 0.0 }", "return x * 1.0");
        break;
      case 2:  // undoes itself: the commuted op matches again
        rule(fmt::format("(x, y) {{ return ordered {}(x, y) }}", rng_.chance(0.5) ? "add" : "mul"),
             fmt::format("return {}(y, x)", rng_.chance(0.5) ? "add" : "mul"));
        break;
      case 3:  // grows by two nodes per match and iteration: u(x) -> u(x) + 0
        rule(fmt::format("(x) {{ return {}(x) }}", u), fmt::format("return {}(x) + 0.0", u));
        break;
      case 4:  // doubles the matches per iteration: u(x) -> u(x) + u(x)
        rule(fmt::format("(x) {{ return {}(x) }}", u),
             fmt::format("return {}(x) {} {}(x)", u, rng_.chance(0.5) ? "+" : "*", u));
        break;
      case 5:  // doubles a chain: u(x) -> u(u(x))
        rule(fmt::format("(x) {{ return {}(x) }}", u), fmt::format("return {0}({0}(x))", u));
        break;
      case 6:  // many alternatives, rewritten to one of them or to another op
        rule(fmt::format("(x) {{ return {}(x) }}", alternatives()), fmt::format("return {}(x)", v));
        break;
      case 7:  // an op class: activation(x) -> relu(x) rewrites relu to itself forever
        rule(fmt::format("(x) {{ return {}(x) }}", rng_.chance(0.5) ? "activation" : "unary"),
             fmt::format("return {}(x)", v));
        break;
      case 8:  // collapse two ops into one (shrinks)
        rule(fmt::format("(x) {{ y = {}(x)\n    return {}(y) }}", u, v),
             fmt::format("return {}(x)", unary()), rng_.chance(0.5) ? "uses(y) == 1" : "");
        break;
      case 9:  // rebuilds the same two ops: matches again after every rewrite
        rule(fmt::format("(x) {{ y = {}(x)\n    return {}(y) }}", u, v),
             fmt::format("return {}({}(x))", v, u),
             rng_.chance(0.5) ? "uses(y) == 1, not output(y)" : "");
        break;
      case 10:  // erase: u(x) -> x
        rule(fmt::format("(x) {{ return {}(x) }}", u), "return x");
        break;
      case 11:  // a multi-output pattern: two equal ops of one value, merged (or rebuilt)
        rule(fmt::format("(x) {{ a = {0}(x)\n    b = {0}(x)\n    return a, b }}", u),
             rng_.chance(0.5) ? fmt::format("r = {}(x)\n    return r, r", u)
                              : fmt::format("return {0}(x), {0}(x)", u));
        break;
      case 12:  // a scalar operand moved to the other side of a commutative op
        rule("(x) { return mul(x, $c) }", "return mul($c, x)");
        break;
      default: {  // a binary op expanded into more ops over the same operands
        std::string op = binary();
        rule(fmt::format("(x, y) {{ return {}(x, y) }}", op),
             fmt::format("return {}(x * 1.0, y {} 0.0)", op, rng_.chance(0.5) ? "+" : "-"),
             rng_.chance(0.3) ? "shape(x) == shape(y)" : "");
        break;
      }
    }
  }

  /// Up to 3 phases over a random subset of the rules; the rest run in the default phase.
  void add_phases() {
    int phases = rng_.below(4);
    std::vector<bool> listed(names_.size(), false);
    for (int p = 0; p < phases; ++p) {
      std::vector<std::string> members;
      for (size_t r = 0; r < names_.size(); ++r) {
        if (!listed[r] && rng_.chance(0.6)) {
          members.push_back(names_[r]);
          listed[r] = true;
        }
      }
      if (members.empty()) continue;
      std::string mode;
      switch (rng_.below(4)) {
        case 0:
          mode = "once";
          break;
        case 1:
          mode = "fixpoint";
          break;
        default:
          mode = fmt::format("fixpoint(max={})", rng_.pick({1, 3, 10, 100, 1000, 1000000}));
      }
      text_ += fmt::format("phase p{} {} {{ {} }}\n", p, mode, fmt::join(members, ", "));
    }
  }

  Rng rng_;
  std::string text_;
  std::vector<std::string> names_;
};

}  // namespace

std::string random_rule_text(uint64_t seed) { return RuleGen(seed).run(); }

}  // namespace graft::testing
