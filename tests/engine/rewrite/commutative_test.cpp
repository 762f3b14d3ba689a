// Commutative matching: matches that need operands swapped at several nodes, with the bindings
// they had before the binder backjumped; distinct pattern nodes on one graph node; and the
// binding step budget — a candidate that exhausts it is skipped with a warning naming the rule
// and the node, and --explain says so. (tests/property/commutative_matching_test.cpp checks
// the binder against an exhaustive search and on the shapes that used to take exponential time.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/match/matcher.h"
#include "engine/ops/op_registry.h"
#include "tests/dsl/rules_testing.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

/// Builds small graphs through the IR's API.
struct Builder {
  Graph graph;

  Node* input(const std::string& name) {
    return graph.add_placeholder(name, TensorType{DType::kFloat32, {2, 3}});
  }
  Node* call(const std::string& op, std::vector<Node*> operands,
             std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
    const OpSchema& schema = *OpRegistry::get().find(op);
    std::vector<Input> inputs;
    for (Node* n : operands) inputs.push_back(Input::of(n));
    std::vector<AttrValue> values = Graph::default_attrs(schema);
    for (auto& [name, value] : attrs) values[static_cast<size_t>(schema.attr_index(name))] = value;
    return graph.add_call(schema, inputs, values, op);
  }
};

/// The same tree over placeholders in `b`; returns its root.
Node* tree_graph(Builder& b, const std::string& op, const std::vector<Node*>& leaves) {
  std::vector<Node*> level = leaves;
  while (level.size() > 1) {
    std::vector<Node*> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(b.call(op, {level[i], level[i + 1]}));
    level = std::move(next);
  }
  return level[0];
}

}  // namespace

TEST_CASE("a match that needs operands swapped at several nodes binds as before",
          "[rewrite][commutative]") {
  RuleSet rules = rules_from_text(R"(
rule r {
  pattern(a, b) { return add(mul(a, relu(b)), mul(relu(a), b)) }
  replacement { return sub(a, b) }
}
)");
  // Both operand muls are written the other way round, and so is the add. The pattern is
  // symmetric in a and b; the first binding the search reaches is a = p, b = q.
  Builder b;
  Node* p = b.input("p");
  Node* q = b.input("q");
  Node* rp = b.call("relu", {p});
  Node* rq = b.call("relu", {q});
  Node* root = b.call("add", {b.call("mul", {rq, p}), b.call("mul", {q, rp})});
  b.graph.set_output({Input::of(root)});
  Rewritten r = rewrite(b.graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.stats[0].applied == 1);
  const Node* sub = b.graph.output()->input_node(0);
  REQUIRE(sub->is_op("sub"));
  CHECK(sub->input_node(0) == p);
  CHECK(sub->input_node(1) == q);
}

TEST_CASE("a shared variable forces the one order of every operand pair that fits",
          "[rewrite][commutative]") {
  // v0 occurs at the first and the last leaf of 16. The graph's leaves are in reverse order
  // except for one pair, so the binding needs all but one node swapped: far from the first
  // combination of orders tried.
  std::vector<std::string> leaves;
  for (int i = 0; i < 15; ++i) leaves.push_back("v" + std::to_string(i));
  leaves.push_back("v0");
  std::string params = "v0";
  for (int i = 1; i < 15; ++i) params += ", v" + std::to_string(i);
  RuleSet rules = rules_from_text("rule r { pattern(" + params + ") { return " +
                                  balanced_tree_text("mul", leaves) + " } replacement { return v0 } }");
  Builder b;
  std::vector<Node*> inputs;
  for (int i = 0; i < 15; ++i) inputs.push_back(b.input("p" + std::to_string(i)));
  // The leaves reversed (every node swapped), then the first pair swapped back: p14 p0 p13 … p1 p0.
  std::vector<Node*> graph_leaves{inputs[0]};
  graph_leaves.insert(graph_leaves.end(), inputs.rbegin(), inputs.rend() - 1);
  graph_leaves.push_back(inputs[0]);
  std::swap(graph_leaves[0], graph_leaves[1]);
  Node* root = tree_graph(b, "mul", graph_leaves);
  b.graph.set_output({Input::of(root)});
  CompiledRules compiled(rules);
  Matcher matcher(compiled, b.graph);
  matcher.label_all();
  std::optional<Match> m = matcher.match_at(0, root);
  REQUIRE(m);
  CHECK(m->vars[0].node == inputs[0]);  // v0
  std::vector<Node*> bound;             // v1..v14: the other inputs, each once
  for (size_t v = 1; v < 15; ++v) bound.push_back(m->vars[v].node);
  std::sort(bound.begin(), bound.end());
  std::vector<Node*> others(inputs.begin() + 1, inputs.end());
  std::sort(others.begin(), others.end());
  CHECK(bound == others);
}

TEST_CASE("two pattern nodes never bind one graph node, in either operand order",
          "[rewrite][commutative]") {
  RuleSet rules = rules_from_text(R"(
rule r { pattern(a, b) { return add(relu(a), relu(b)) } replacement { return a } }
)");
  Builder one;
  Node* x = one.input("x");
  Node* r = one.call("relu", {x});
  one.graph.set_output({Input::of(one.call("add", {r, r}))});
  CHECK(rewrite(one.graph, rules).result.stats[0].applied == 0);
  Builder two;
  Node* y = two.input("y");
  two.graph.set_output(
      {Input::of(two.call("add", {two.call("relu", {y}), two.call("relu", {y})}))});
  CHECK(rewrite(two.graph, rules).result.stats[0].applied == 1);
}

TEST_CASE("a candidate that runs out of binding steps is skipped with a warning",
          "[rewrite][commutative]") {
  // Four leaves each of x0..x3, mirrored; the graph's sixteen leaves are distinct, so there is
  // no match and ruling it out takes more than the small budget below.
  std::vector<std::string> leaves;
  for (int half = 0; half < 2; ++half) {
    for (int i = 0; i < 8; ++i) leaves.push_back("x" + std::to_string(i));
  }
  RuleSet rules =
      rules_from_text("rule mirrored { pattern(x0, x1, x2, x3, x4, x5, x6, x7) { return " +
                      balanced_tree_text("add", leaves) + " } replacement { return x0 } }");
  Builder b;
  std::vector<Node*> inputs;
  for (int i = 0; i < 16; ++i) inputs.push_back(b.input("p" + std::to_string(i)));
  Node* root = tree_graph(b, "add", inputs);
  b.graph.set_output({Input::of(root)});
  CompiledRules compiled(rules);

  SECTION("the default budget rules the match out") {
    DiagnosticEngine diags;
    RewriteResult result = rewrite_graph(b.graph, compiled, RewriteOptions{}, diags);
    CHECK(result.ok);
    CHECK(diags.warning_count() == 0);
    CHECK(result.stats[0].matches == 0);
  }
  SECTION("a small budget gives up, once per rule and node") {
    RewriteOptions options;
    options.max_binding_steps = 40;
    DiagnosticEngine diags;
    RewriteResult result = rewrite_graph(b.graph, compiled, options, diags);
    CHECK(result.ok);
    CHECK(result.stats[0].applied == 0);
    REQUIRE(diags.warning_count() == 1);
    CHECK(diags.render() ==
          "test.rules:1: warning: rule 'mirrored' skipped at node '" + root->name() +
              "': no match found or ruled out within 40 binding steps (commutative operands "
              "leave too many ways to bind the pattern; 'ordered' calls narrow them)\n");
  }
  SECTION("--explain says the binder gave up") {
    Matcher matcher(compiled, b.graph);
    matcher.label_all();
    matcher.set_binding_budget(40);
    Explanation why;
    CHECK_FALSE(matcher.match_at(0, root, &why));
    CHECK(matcher.gave_up());
    CHECK(why.reason.rfind("gave up after 40 binding steps (", 0) == 0);
    matcher.set_binding_budget(0);  // the default
    CHECK_FALSE(matcher.match_at(0, root, &why));
    CHECK_FALSE(matcher.gave_up());
  }
}

// ** commutativity that depends on attributes (issue #29) **

namespace {

// b + 2·relu(a) is not relu(a) + 2·b: an add with alpha != 1 must not match swapped.
const char* const kAddAlpha = R"(
rule relu_first {
  pattern(a, b) { return add(relu(a), b, alpha=$al) }
  replacement { return add(relu(a), b, alpha=$al) }
}
)";

}  // namespace

TEST_CASE("an add with alpha other than 1 does not match with its operands swapped",
          "[rewrite][commutative]") {
  RuleSet rules = rules_from_text(kAddAlpha);
  CompiledRules compiled(rules);
  // In each graph, two adds whose operands have the same states and whose attributes pass the
  // same predicates (the pattern only binds alpha): tier 1 must tell them apart by alpha, in
  // either order of first sight.
  for (bool alpha_one_first : {true, false}) {
    INFO("alpha=1 first: " << alpha_one_first);
    Builder g;
    Node* a = g.input("a");
    Node* b = g.input("b");
    Node* swapped_one = nullptr;
    Node* swapped_two = nullptr;
    for (int k = 0; k < 2; ++k) {
      bool one = (k == 0) == alpha_one_first;
      Node* n = g.call("add", {b, g.call("relu", {a})}, {{"alpha", one ? 1.0 : 2.0}});
      (one ? swapped_one : swapped_two) = n;
    }
    Node* written = g.call("add", {g.call("relu", {a}), b}, {{"alpha", 2.0}});
    g.graph.set_output({Input::of(swapped_one), Input::of(swapped_two), Input::of(written)});
    Matcher matcher(compiled, g.graph);
    matcher.label_all();
    // alpha=2, operands swapped: neither tier 1 nor the binder (with or without tier 1's
    // pruning, as --explain runs it) matches.
    CHECK(matcher.anchored_rules(swapped_two).empty());
    CHECK_FALSE(matcher.match_at(0, swapped_two));
    Explanation why;
    CHECK_FALSE(matcher.match_at(0, swapped_two, &why));
    CHECK(why.reason == "pattern node relu (test.rules:3:30) needs an op, got placeholder 'b'");
    // alpha=1, operands swapped: matches, a and b in their places.
    std::optional<Match> m = matcher.match_at(0, swapped_one);
    REQUIRE(m);
    CHECK(m->vars[0].node == a);
    CHECK(m->vars[1].node == b);
    // alpha=2 in the written order: matches, binding alpha.
    m = matcher.match_at(0, written);
    REQUIRE(m);
    CHECK(m->vars[1].node == b);
    CHECK(attr_to_string(m->attr_vars[0]) == "2.0");
  }
}

TEST_CASE("a rule add(x, y) binds an add with alpha other than 1 only in the written order",
          "[rewrite][commutative]") {
  // The condition rejects the written order of add(b, a): only a swap could match, and with
  // alpha=2 that would read b + 2·a as a + 2·b. Tier 1 cannot tell (both operands are
  // parameters): the binder must.
  RuleSet rules = rules_from_text(R"(
rule rank3_first {
  pattern(x, y) { return add(x, y) }
  where rank(x) == 3
  replacement { return sub(x, y) }
}
)");
  CompiledRules compiled(rules);
  for (double alpha : {1.0, 2.0}) {
    INFO("alpha=" << alpha);
    Builder g;
    Node* a = g.graph.add_placeholder("a", TensorType{DType::kFloat32, {2, 3, 4}});
    Node* b = g.graph.add_placeholder("b", TensorType{DType::kFloat32, {3, 4}});
    Node* sum = g.call("add", {b, a}, {{"alpha", alpha}});
    g.graph.set_output({Input::of(sum)});
    Matcher matcher(compiled, g.graph);
    matcher.label_all();
    std::optional<Match> m = matcher.match_at(0, sum);
    Explanation why;
    bool explained = matcher.match_at(0, sum, &why).has_value();
    if (alpha == 1.0) {
      REQUIRE(m);  // swapped: x = a, y = b
      CHECK(m->vars[0].node == a);
      CHECK(m->vars[1].node == b);
      CHECK(explained);
    } else {
      CHECK_FALSE(m);
      CHECK_FALSE(explained);
      CHECK(why.reason.find("rank(x) == 3") != std::string::npos);
    }
    CHECK(rewrite(g.graph, rules).result.stats[0].applied == (alpha == 1.0 ? 1 : 0));
  }
}
