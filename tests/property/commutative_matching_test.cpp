// Property: the binder (engine/match/match_binder.cpp) finds a match exactly when a search over every
// combination of operand orders does. It backjumps over the choices a failure does not depend
// on; a wrong conflict set would make it miss matches. For each seed a random pattern of
// commutative ops (and sub, relu) over a few shared variables, with a `where` condition at
// times, is matched at every node of a graph made from it — commutative operands swapped at
// random, variables rebound, nodes shared between operands, some adds with alpha=2 (whose
// operands do not commute) — and compared with an exhaustive search written here. Then the
// shapes issue #25 hung on: trees and chains of 31 and 63 adds, muls, maximums and adds mixed
// with muls, with repeated variables, against graphs that match or differ in one place; the
// trees and the doubling chains take exponentially many steps when every combination of orders
// is tried.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "engine/match/match_conditions.h"
#include "engine/match/matcher.h"
#include "engine/ops/op_registry.h"
#include "tests/dsl/rules_testing.h"
#include "tests/property/property_testing.h"
#include "tests/property/rng.h"

using namespace graft;
using namespace graft::testing;

namespace {

constexpr uint64_t kSeeds = 600;

// ** the exhaustive reference **

struct RefBinding {
  std::vector<Node*> nodes;
  std::vector<Input> vars;
  std::vector<char> bound;
};

bool same_value(const Input& a, const Input& b) {
  return a.kind == b.kind && (!a.is_node() || a.node == b.node);
}

/// Whether `rule` (one root, one alternative per node, variables and nodes as operands, as
/// generated below) matches with `tasks` still to bind: both orders of every node that
/// commutes are tried, whatever failed.
bool reference_match(const Graph& graph, const Rule& rule, const RefBinding& b,
                     std::vector<std::pair<uint32_t, Node*>> tasks) {
  if (tasks.empty()) {
    std::vector<AttrValue> attr_vars(rule.attr_var_names.size());
    return conditions_hold(graph, rule, b.nodes, b.vars, attr_vars, nullptr);
  }
  auto [p, n] = tasks.back();
  tasks.pop_back();
  if (b.nodes[p] != nullptr) return b.nodes[p] == n && reference_match(graph, rule, b, tasks);
  if (!n->is(NodeKind::kCallFunction)) return false;
  if (std::find(b.nodes.begin(), b.nodes.end(), n) != b.nodes.end()) return false;
  const PatAlt& alt = rule.nodes[p].alts[0];
  if (alt.schema != n->schema() || n->inputs().size() != alt.operands.size()) return false;
  int orders = rule.nodes[p].commutative && n->schema()->commutes(n->attrs()) ? 2 : 1;
  for (int order = 0; order < orders; ++order) {
    RefBinding with = b;
    std::vector<std::pair<uint32_t, Node*>> more = tasks;
    with.nodes[p] = n;
    bool ok = true;
    for (size_t i = 0; i < alt.operands.size() && ok; ++i) {
      const PatValue& v = alt.operands[i];
      const Input& in = n->input(order == 1 && i < 2 ? 1 - i : i);
      if (v.kind == PatValue::Kind::kNode) {
        ok = in.is_node();
        if (ok) more.push_back({v.index, in.node});
      } else if (with.bound[v.index]) {
        ok = same_value(with.vars[v.index], in);
      } else {
        with.bound[v.index] = 1;
        with.vars[v.index] = in;
      }
    }
    if (ok && reference_match(graph, rule, with, more)) return true;
  }
  return false;
}

bool reference_match_at(const Graph& graph, const Rule& rule, Node* anchor) {
  RefBinding b{std::vector<Node*>(rule.nodes.size(), nullptr),
               std::vector<Input>(rule.var_names.size()),
               std::vector<char>(rule.var_names.size(), 0)};
  return reference_match(graph, rule, b, {{rule.roots[0], anchor}});
}

/// "" when `m` is a binding of `rule`: each pattern node's op, its operands in an order the
/// node allows, distinct graph nodes, and the conditions; otherwise what is wrong.
std::string check_binding(const Graph& graph, const Rule& rule, const Match& m) {
  for (uint32_t p = 0; p < rule.nodes.size(); ++p) {
    const Node* n = m.nodes[p];
    const PatAlt& alt = rule.nodes[p].alts[0];
    if (n == nullptr || n->schema() != alt.schema) return "pattern node " + std::to_string(p);
    for (uint32_t q = 0; q < p; ++q) {
      if (m.nodes[q] == n) return "two pattern nodes bind '" + n->name() + "'";
    }
    bool fits = false;
    int orders = rule.nodes[p].commutative && n->schema()->commutes(n->attrs()) ? 2 : 1;
    for (int order = 0; order < orders && !fits; ++order) {
      fits = true;
      for (size_t i = 0; i < alt.operands.size(); ++i) {
        const PatValue& v = alt.operands[i];
        const Input& in = n->input(order == 1 && i < 2 ? 1 - i : i);
        Input expected =
            v.kind == PatValue::Kind::kNode ? Input::of(m.nodes[v.index]) : m.vars[v.index];
        fits = fits && same_value(in, expected);
      }
    }
    if (!fits) return "the operands of '" + n->name() + "'";
  }
  if (!conditions_hold(graph, rule, m.nodes, m.vars, m.attr_vars, nullptr)) return "the conditions";
  return "";
}

// ** random cases **

const char* const kOps[] = {"add", "mul", "maximum", "minimum", "add", "mul", "sub", "relu"};

struct Statement {
  std::string op;
  std::vector<std::string> args;  // "x<i>" variables, "y<i>" statements
  bool ordered = false;
};

struct Case {
  std::string rules;
  std::unique_ptr<Graph> graph;
};

/// A pattern of up to `ops` statements over `vars` variables; the last one is returned, and
/// every other statement is an operand of a later one (once, or at times twice).
std::vector<Statement> random_pattern(Rng& rng, int ops, int vars) {
  std::vector<Statement> out;
  std::vector<int> unused;  // statements no later one reads yet
  for (int i = 0; i < ops; ++i) {
    Statement s{kOps[rng.below(8)], {}, rng.chance(0.1)};
    int arity = s.op == "relu" ? 1 : 2;
    for (int a = 0; a < arity; ++a) {
      if (!unused.empty() && rng.chance(0.6)) {
        size_t k = static_cast<size_t>(rng.below(static_cast<int>(unused.size())));
        s.args.push_back("y" + std::to_string(unused[k]));
        if (rng.chance(0.85)) unused.erase(unused.begin() + static_cast<long>(k));
      } else {
        s.args.push_back("x" + std::to_string(rng.below(vars)));
      }
    }
    out.push_back(s);
    unused.push_back(i);
  }
  while (unused.size() > 1) {  // join what is left into one root
    std::string a = "y" + std::to_string(unused.back());
    unused.pop_back();
    std::string b = "y" + std::to_string(unused.back());
    unused.pop_back();
    out.push_back({kOps[rng.below(4)], {b, a}, false});
    unused.push_back(static_cast<int>(out.size()) - 1);
  }
  return out;
}

std::string rule_text(const std::vector<Statement>& pattern, Rng& rng) {
  std::vector<std::string> used;  // the variables that occur, in order
  for (const Statement& s : pattern) {
    for (const std::string& a : s.args) {
      if (a[0] == 'x' && std::find(used.begin(), used.end(), a) == used.end()) used.push_back(a);
    }
  }
  std::string params, body;
  for (const std::string& v : used) params += (params.empty() ? "" : ", ") + v;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const Statement& s = pattern[i];
    std::string call = std::string(s.ordered ? "ordered " : "") + s.op + "(" + s.args[0] +
                       (s.args.size() > 1 ? ", " + s.args[1] : "") + ")";
    body += i + 1 < pattern.size() ? "  y" + std::to_string(i) + " = " + call + "\n"
                                   : "  return " + call + "\n";
  }
  std::string where;
  if (rng.chance(0.3)) {
    const std::string& v = used[static_cast<size_t>(rng.below(static_cast<int>(used.size())))];
    where = "where rank(" + v + ") == " + (rng.chance(0.7) ? "2" : "3") + "\n";
  }
  return "rule r {\npattern(" + params + ") {\n" + body + "}\n" + where +
         "replacement { return relu(" + used[0] + ") }\n}\n";
}

/// The pattern written as a graph: variables are placeholders (two of rank 3), commutative
/// operands swapped at random; with `noise`, variables rebound, ops changed and node operands
/// replaced by other nodes, so that many anchors do not match.
std::unique_ptr<Graph> graph_from(const std::vector<Statement>& pattern, int vars, Rng& rng,
                                  double noise) {
  auto graph = std::make_unique<Graph>();
  std::vector<Node*> placeholders;
  for (int i = 0; i < vars + 1; ++i) {
    std::vector<Dim> shape = i < 2 ? std::vector<Dim>{2, 3, 4} : std::vector<Dim>{2, 3};
    placeholders.push_back(
        graph->add_placeholder("p" + std::to_string(i), TensorType{DType::kFloat32, shape}));
  }
  std::vector<Node*> var_of(static_cast<size_t>(vars), nullptr), nodes;
  for (const Statement& s : pattern) {
    std::vector<Input> inputs;
    for (const std::string& a : s.args) {
      size_t k = std::stoul(a.substr(1));
      Node* in = nullptr;
      if (a[0] == 'x') {
        if (var_of[k] == nullptr || rng.chance(noise)) {
          var_of[k] = placeholders[static_cast<size_t>(rng.below(vars + 1))];
        }
        in = var_of[k];
      } else {
        in = rng.chance(noise / 2)
                 ? nodes[static_cast<size_t>(rng.below(static_cast<int>(nodes.size())))]
                 : nodes[k];
      }
      inputs.push_back(Input::of(in));
    }
    std::string op = s.op;
    if (op != "relu" && rng.chance(noise / 3)) op = kOps[rng.below(7)];
    const OpSchema& schema = *OpRegistry::get().find(op);
    if (schema.commutative && rng.chance(0.5)) std::swap(inputs[0], inputs[1]);
    std::vector<AttrValue> attrs = Graph::default_attrs(schema);
    if (op == "add" && rng.chance(0.2)) attrs[0] = 2.0;  // alpha: the operands do not commute
    nodes.push_back(graph->add_call(schema, inputs, attrs));
  }
  graph->set_output({Input::of(nodes.back())});
  return graph;
}

Case random_case(uint64_t seed) {
  Rng rng(seed);
  int vars = 1 + rng.below(4);
  std::vector<Statement> pattern = random_pattern(rng, 2 + rng.below(9), vars);
  Case c;
  c.rules = rule_text(pattern, rng);
  c.graph = graph_from(pattern, vars, rng, rng.pick({0.0, 0.2, 0.5}));
  return c;
}

}  // namespace

TEST_CASE("the binder finds a match exactly when trying every operand order does",
          "[property][matcher]") {
  uint64_t seeds_matched = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Case c = random_case(seed);
    std::string errors;
    std::optional<RuleSet> rules = lower_rules_text(c.rules, &errors);
    INFO("seed " << seed << "\n" << c.rules << errors);
    REQUIRE(rules);
    CompiledRules compiled(*rules);
    Matcher matcher(compiled, *c.graph);
    matcher.label_all();
    const Rule& rule = rules->rules[0];
    bool matched = false;
    for (Node* n : c.graph->nodes()) {
      if (!n->is(NodeKind::kCallFunction)) continue;
      INFO("at '" << n->name() << "'");
      bool expected = reference_match_at(*c.graph, rule, n);
      std::optional<Match> m = matcher.match_at(0, n);
      CHECK_FALSE(matcher.gave_up());
      REQUIRE(m.has_value() == expected);
      if (m) REQUIRE(check_binding(*c.graph, rule, *m) == "");
      Explanation why;  // the same search without tier 1's pruning
      CHECK(matcher.match_at(0, n, &why).has_value() == expected);
      matched = matched || expected;
    }
    seeds_matched += matched;
  }
  // Not vacuous: graphs with and without a match are both common.
  CHECK(seeds_matched > kSeeds / 4);
  CHECK(seeds_matched < kSeeds * 3 / 4);
}

// ** the shapes of issue #25 **

namespace {

std::string params_of(const std::vector<std::string>& leaves) {
  std::vector<std::string> seen;
  for (const std::string& l : leaves) {
    if (std::find(seen.begin(), seen.end(), l) == seen.end()) seen.push_back(l);
  }
  std::string out;
  for (const std::string& s : seen) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string rule_of(const std::vector<std::string>& params, const std::string& body,
                    const std::string& where = "") {
  return "rule r {\npattern(" + params_of(params) + ") {\n" + body + "}\n" + where +
         "replacement { return relu(" + params[0] + ") }\n}\n";
}

Node* leaf(Graph& graph, const std::string& name) {
  Node* p = graph.find(name);
  return p != nullptr ? p : graph.add_placeholder(name, TensorType{DType::kFloat32, {2, 3}});
}

Node* call(Graph& graph, const std::string& op, Input a, Input b, Rng* rng) {
  const OpSchema& schema = *OpRegistry::get().find(op);
  if (rng != nullptr && rng->chance(0.5)) std::swap(a, b);
  return graph.add_call(schema, {a, b}, Graph::default_attrs(schema));
}

/// A graph of placeholders `leaves` (created once per name) under a balanced tree, `ops[k]`
/// at its k-th node as in balanced_tree_text; with `rng`, each node's operands swapped at
/// random. Returns the root.
Node* tree_graph(Graph& graph, const std::vector<std::string>& ops,
                 const std::vector<std::string>& leaves, Rng* rng) {
  std::vector<Input> level;
  for (const std::string& name : leaves) level.push_back(Input::of(leaf(graph, name)));
  size_t k = 0;
  while (level.size() > 1) {
    std::vector<Input> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      next.push_back(Input::of(call(graph, ops[k++], level[i], level[i + 1], rng)));
    }
    level = std::move(next);
  }
  graph.set_output({level[0]});
  return level[0].node;
}

std::vector<std::string> names(const std::string& stem, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(stem + std::to_string(i));
  return out;
}

struct HardCase {
  std::string what;
  std::string rules;
  std::unique_ptr<Graph> graph;
  Node* anchor = nullptr;
  bool matches = false;
};

/// Trees of `ops.size()` ops whose binding, with every combination of orders tried, takes up
/// to 2^ops.size() attempts; most differ from their graph in one place only.
std::vector<HardCase> tree_shapes(const std::vector<std::string>& ops, uint64_t seed) {
  std::vector<HardCase> out;
  Rng rng(seed);
  int leaves = static_cast<int>(ops.size()) + 1;
  std::vector<std::string> xs = names("x", leaves), ps = names("p", leaves);
  auto add = [&](std::string what, const std::vector<std::string>& rule_leaves,
                 const std::string& where, const std::vector<std::string>& graph_leaves,
                 bool matches) {
    HardCase s{what,
               rule_of(rule_leaves, "return " + balanced_tree_text(ops, rule_leaves) + "\n", where),
               std::make_unique<Graph>(), nullptr, matches};
    s.anchor = tree_graph(*s.graph, ops, graph_leaves, &rng);
    out.push_back(std::move(s));
  };
  // x0 at both ends: the first and last leaf must be one value.
  std::vector<std::string> ends = xs;
  ends.back() = "x0";
  add("x0 at both ends, distinct leaves", ends, "", ps, false);
  std::vector<std::string> ends_graph = ps;
  ends_graph.back() = "p0";
  add("x0 at both ends, operands swapped", ends, "", ends_graph, true);
  // The same variable everywhere, one leaf different.
  std::vector<std::string> same(static_cast<size_t>(leaves), "p");
  same[static_cast<size_t>(leaves) / 2 + 1] = "q";
  add("one variable, one leaf different", std::vector<std::string>(same.size(), "x"), "", same,
      false);
  // Each variable twice, mirrored: every leaf is tied to one in the other half.
  std::vector<std::string> half(xs.begin(), xs.begin() + leaves / 2), mirrored = half;
  mirrored.insert(mirrored.end(), half.begin(), half.end());
  add("mirrored variables, distinct leaves", mirrored, "", ps, false);
  std::vector<std::string> mirrored_graph(ps.begin(), ps.begin() + leaves / 2),
      copy = mirrored_graph;
  mirrored_graph.insert(mirrored_graph.end(), copy.begin(), copy.end());
  add("mirrored variables, operands swapped", mirrored, "", mirrored_graph, true);
  // A condition on one variable that no leaf meets.
  add("distinct variables, a failing condition", xs, "where rank(x0) == 3\n", ps, false);
  return out;
}

/// `y0 = op(x0, x1)`, `y<k> = op(y<k-1>, x<k+1>)`, …, `return op(y<n-2>, x0)`: a chain of
/// n = `ops.size()` ops, x0 at its first and last leaf, against the same chain with operands
/// swapped at random, over distinct placeholders or with p0 at both ends.
HardCase left_chain(const std::vector<std::string>& ops, bool matches, uint64_t seed) {
  size_t n = ops.size();
  std::vector<std::string> xs = names("x", static_cast<int>(n) + 1);
  xs.back() = "x0";
  std::string body, prev = xs[0];
  for (size_t k = 0; k < n; ++k) {
    std::string op = ops[k] + "(" + prev + ", " + xs[k + 1] + ")";
    prev = "y" + std::to_string(k);
    body += k + 1 < n ? prev + " = " + op + "\n" : "return " + op + "\n";
  }
  HardCase s{"a chain, x0 at both ends", rule_of(xs, body), std::make_unique<Graph>(), nullptr,
             matches};
  Rng rng(seed);
  std::vector<std::string> ps = names("p", static_cast<int>(n) + 1);
  if (matches) ps.back() = "p0";
  Node* y = leaf(*s.graph, ps[0]);
  for (size_t k = 0; k < n; ++k) {
    y = call(*s.graph, ops[k], Input::of(y), Input::of(leaf(*s.graph, ps[k + 1])), &rng);
  }
  s.graph->set_output({Input::of(y)});
  s.anchor = y;
  return s;
}

/// `y0 = op(x, x or z)`, `y<k> = op(y<k-1>, y<k-1>)`: a chain of `ops.size()` ops, each
/// reading the one before twice, against the same chain over two distinct placeholders.
HardCase doubling_chain(const std::vector<std::string>& ops, bool matches) {
  std::string body = "y0 = " + ops[0] + "(x, " + (matches ? "z" : "x") + ")\n";
  for (size_t i = 1; i < ops.size(); ++i) {
    std::string prev = "y" + std::to_string(i - 1);
    body += "y" + std::to_string(i) + " = " + ops[i] + "(" + prev + ", " + prev + ")\n";
  }
  body += "return y" + std::to_string(ops.size() - 1) + "\n";
  std::vector<std::string> params{"x"};
  if (matches) params.push_back("z");
  HardCase s{"a doubling chain", rule_of(params, body), std::make_unique<Graph>(), nullptr,
             matches};
  Node* n = call(*s.graph, ops[0], Input::of(leaf(*s.graph, "p0")), Input::of(leaf(*s.graph, "p1")),
                 nullptr);
  for (size_t i = 1; i < ops.size(); ++i) {
    n = call(*s.graph, ops[i], Input::of(n), Input::of(n), nullptr);
  }
  s.graph->set_output({Input::of(n)});
  s.anchor = n;
  return s;
}

/// `count` ops: all `kind`, or for "add and mul" each one of the two at random.
std::vector<std::string> ops_of(const std::string& kind, int count, Rng& rng) {
  std::vector<std::string> ops;
  for (int i = 0; i < count; ++i) {
    ops.push_back(kind != "add and mul" ? kind : rng.chance(0.5) ? "add" : "mul");
  }
  return ops;
}

}  // namespace

TEST_CASE("chains and trees of 31 and 63 commutative ops bind within the step budget",
          "[property][matcher]") {
  // Trying every combination of operand orders, the trees and the doubling chains take minutes
  // for 31 ops and do not finish for 63: such a binder would run out of steps here (gave_up).
  for (const char* kind : {"add", "mul", "maximum", "add and mul"}) {
    for (int count : {31, 63}) {
      Rng rng(static_cast<uint64_t>(count));
      std::vector<std::string> ops = ops_of(kind, count, rng);
      std::vector<HardCase> shapes = tree_shapes(ops, static_cast<uint64_t>(count));
      shapes.push_back(left_chain(ops, true, static_cast<uint64_t>(count)));
      shapes.push_back(left_chain(ops, false, static_cast<uint64_t>(count)));
      shapes.push_back(doubling_chain(ops, true));
      shapes.push_back(doubling_chain(ops, false));
      for (HardCase& s : shapes) {
        INFO(count << " ops (" << kind << "): " << s.what << "\n" << s.rules);
        std::string errors;
        std::optional<RuleSet> rules = lower_rules_text(s.rules, &errors);
        REQUIRE(rules);
        CompiledRules compiled(*rules);
        Matcher matcher(compiled, *s.graph);
        matcher.label_all();
        std::optional<Match> m = matcher.match_at(0, s.anchor);
        CHECK_FALSE(matcher.gave_up());
        CHECK(m.has_value() == s.matches);
        if (m) CHECK(check_binding(*s.graph, rules->rules[0], *m) == "");
        Explanation why;  // without tier 1's pruning
        CHECK(matcher.match_at(0, s.anchor, &why).has_value() == s.matches);
        CHECK_FALSE(matcher.gave_up());
      }
    }
  }
}
