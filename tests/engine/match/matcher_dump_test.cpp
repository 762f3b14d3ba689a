// Golden tests of the compiled matcher: for a few small rule sets (one rule, alternatives,
// commutative operands, a multi-output pattern, an op class) the lowered rules' dump, the
// automaton's dump, and which nodes of a small graph each rule matches, compared with
// expected text. A change to lowering or to the automaton's construction shows here as a
// readable diff (docs/matcher.md#reading-the-dumps).
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/match/matcher.h"
#include "engine/ops/op_registry.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

/// Adds `op` over `inputs` named `name`, with the schema's default attributes except `set`.
Node* call(Graph& graph, const char* op, std::vector<Input> inputs, const char* name,
           std::vector<std::pair<const char*, AttrValue>> set = {}) {
  const OpSchema* schema = OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  std::vector<AttrValue> attrs = Graph::default_attrs(*schema);
  for (auto& [attr, value] : set) {
    int index = -1;
    for (size_t a = 0; a < schema->attrs.size(); ++a) {
      if (schema->attrs[a].name == attr) index = static_cast<int>(a);
    }
    REQUIRE(index >= 0);
    attrs[index] = value;
  }
  Node* node = graph.add_call(*schema, inputs, std::move(attrs), name);
  REQUIRE(node->name() == name);
  return node;
}

Input in(Node* n) { return Input::of(n); }

/// One line per match, in graph order: "rule @anchor: the graph nodes per pattern node".
std::string matches_of(const CompiledRules& compiled, Graph& graph) {
  Matcher matcher(compiled, graph);
  matcher.label_all();
  std::string out;
  for (Node* node : graph.nodes()) {
    for (uint32_t r : matcher.anchored_rules(node)) {
      std::optional<Match> m = matcher.match_at(r, node);
      if (!m) continue;
      out += compiled.rules().rules[r].name + " @" + node->name() + ":";
      for (const Node* n : m->nodes) out += " " + n->name();
      out += "\n";
    }
  }
  return out;
}

struct Dumps {
  std::string rules;
  std::string compiled;
};

Dumps dumps_of(const RuleSet& rules, const CompiledRules& compiled) {
  return {rules.dump(), compiled.dump()};
}

}  // namespace

TEST_CASE("a single rule dumps as one class chain and matches where its chain is",
          "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(R"(
rule double_relu {
  pattern(x) {
    y = relu(x)
    return relu(y)
  }
  where uses(y) == 1
  replacement { return relu(x) }
}
)");
  CompiledRules compiled(rules);
  Dumps d = dumps_of(rules, compiled);
  CHECK(d.rules == R"(rule double_relu (test.rules:2) benefit 2
  params (x)
  n0 'y' = relu(x)
  n1 = relu(n0)
  return n1
  where uses(y) == 1
  r0 = relu(x)
  yield r0
phase default fixpoint(max=32): double_relu
)");
  CHECK(d.compiled == R"(compiled 1 rules: 2 classes, 0 predicates, max height 2
predicates
classes
  c0 = relu(_)
  c1 = relu(c0)  anchors double_relu
rules
  double_relu: n0=c0 n1=c1; 3 slots; one way; where reads n0
)");
  Graph graph;
  Node* x = graph.add_placeholder("x", std::nullopt);
  Node* a = call(graph, "relu", {in(x)}, "a");
  Node* b = call(graph, "relu", {in(a)}, "b");
  Node* c = call(graph, "relu", {in(b)}, "c");
  Node* t = call(graph, "tanh", {in(c)}, "t");
  graph.set_output({in(t), in(a)});
  // b's operand a is a graph output too (two uses): the condition rejects it there.
  CHECK(matches_of(compiled, graph) == R"(double_relu @c: b c
)");
}

TEST_CASE("alternatives are one class with an item per op, and an attribute check a predicate",
          "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(R"(
rule conv_act {
  pattern(x, w, b?) {
    c = conv2d(x, w, b, groups=1)
    return (relu | relu6)(c)
  }
  replacement { return conv2d(x, w, b) }
}
)");
  CompiledRules compiled(rules);
  Dumps d = dumps_of(rules, compiled);
  CHECK(d.rules == R"(rule conv_act (test.rules:2) benefit 2
  params (x, w, b?)
  n0 'c' = conv2d(x, w, b) groups=1
  n1 = relu(n0) | relu6(n0)
  return n1
  r0 = conv2d(x, w, b)
  yield r0
phase default fixpoint(max=32): conv_act
)");
  CHECK(d.compiled == R"(compiled 1 rules: 2 classes, 1 predicates, max height 2
predicates
  conv2d#0 groups=1
classes
  c0 = conv2d(_, _, _) [#0]
  c1 = relu(c0) | relu6(c0)  anchors conv_act
rules
  conv_act: n0=c0 n1=c1; 5 slots; one way
)");
  Graph graph;
  Node* x = graph.add_placeholder("x", std::nullopt);
  Node* w = graph.add_placeholder("w", std::nullopt);
  Node* c1 = call(graph, "conv2d", {in(x), in(w), Input::none()}, "c1");
  Node* r1 = call(graph, "relu", {in(c1)}, "r1");
  Node* c2 = call(graph, "conv2d", {in(r1), in(w), Input::none()}, "c2");
  Node* r2 = call(graph, "relu6", {in(c2)}, "r2");
  Node* c3 = call(graph, "conv2d", {in(r2), in(w), Input::none()}, "c3", {{"groups", int64_t{2}}});
  Node* r3 = call(graph, "relu", {in(c3)}, "r3");
  Node* t = call(graph, "tanh", {in(c1)}, "t");
  graph.set_output({in(r3), in(t)});
  // c3 has groups=2; t is not an alternative.
  CHECK(matches_of(compiled, graph) == R"(conv_act @r1: c1 r1
conv_act @r2: c2 r2
)");
}

TEST_CASE("a commutative pattern matches either operand order, an add with alpha 2 only as written",
          "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(R"(
rule add_relu {
  pattern(x, y) { return add(relu(x), y) }
  replacement { return x }
}
)");
  CompiledRules compiled(rules);
  Dumps d = dumps_of(rules, compiled);
  CHECK(d.rules == R"(rule add_relu (test.rules:2) benefit 2
  params (x, y)
  n0 = relu(x)
  n1 = commutative add(n0, y)
  return n1
  yield x
phase default fixpoint(max=32): add_relu
)");
  CHECK(d.compiled == R"(compiled 1 rules: 2 classes, 1 predicates, max height 2
predicates
  add#0 alpha=1 (operands commute)
classes
  c0 = relu(_)
  c1 = commutative add(c0, _)  anchors add_relu
rules
  add_relu: n0=c0 n1=c1; 4 slots; choices
)");
  Graph graph;
  Node* x = graph.add_placeholder("x", std::nullopt);
  Node* y = graph.add_placeholder("y", std::nullopt);
  Node* r = call(graph, "relu", {in(x)}, "r");
  Node* a1 = call(graph, "add", {in(r), in(y)}, "a1");
  Node* a2 = call(graph, "add", {in(y), in(r)}, "a2");
  Node* a3 = call(graph, "add", {in(y), in(r)}, "a3", {{"alpha", 2.0}});
  Node* a4 = call(graph, "add", {in(r), in(y)}, "a4", {{"alpha", 2.0}});
  graph.set_output({in(a1), in(a2), in(a3), in(a4)});
  CHECK(matches_of(compiled, graph) == R"(add_relu @a1: r a1
add_relu @a2: r a2
add_relu @a4: r a4
)");
}

TEST_CASE("a multi-output pattern anchors at its first result and joins the second",
          "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(R"(
rule cse_relu {
  pattern(x) {
    a = relu(x)
    b = relu(x)
    return a, b
  }
  replacement {
    r = relu(x)
    return r, r
  }
}
)");
  CompiledRules compiled(rules);
  Dumps d = dumps_of(rules, compiled);
  CHECK(d.rules == R"(rule cse_relu (test.rules:2) benefit 2
  params (x)
  n0 'a' = relu(x)
  n1 'b' = relu(x)
  return n0 n1
  r0 'r' = relu(x)
  yield r0 r0
phase default fixpoint(max=32): cse_relu
)");
  CHECK(d.compiled == R"(compiled 1 rules: 1 classes, 0 predicates, max height 1
predicates
classes
  c0 = relu(_)  anchors cse_relu
rules
  cse_relu: n0=c0 n1=c0; 3 slots; choices
)");
  Graph graph;
  Node* x = graph.add_placeholder("x", std::nullopt);
  Node* y = graph.add_placeholder("y", std::nullopt);
  Node* p = call(graph, "relu", {in(x)}, "p");
  Node* q = call(graph, "relu", {in(x)}, "q");
  Node* s = call(graph, "relu", {in(y)}, "s");
  graph.set_output({in(p), in(q), in(s)});
  CHECK(matches_of(compiled, graph) == R"(cse_relu @p: p q
cse_relu @q: q p
)");
}

TEST_CASE("an op class lowers to its ops as alternatives", "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(R"(
opclass pointwise_act = relu | sigmoid | tanh

rule dropout_after_act {
  pattern(x) {
    y = pointwise_act(x)
    return dropout(y, training=false)
  }
  replacement { return y }
}
)");
  CompiledRules compiled(rules);
  Dumps d = dumps_of(rules, compiled);
  CHECK(d.rules == R"(rule dropout_after_act (test.rules:4) benefit 2
  params (x)
  n0 'y' = relu(x) | sigmoid(x) | tanh(x)
  n1 = dropout(n0) training=False
  return n1
  yield n0
phase default fixpoint(max=32): dropout_after_act
)");
  CHECK(d.compiled == R"(compiled 1 rules: 2 classes, 1 predicates, max height 2
predicates
  dropout#0 training=False
classes
  c0 = relu(_) | sigmoid(_) | tanh(_)
  c1 = dropout(c0) [#0]  anchors dropout_after_act
rules
  dropout_after_act: n0=c0 n1=c1; 3 slots; one way
)");
  Graph graph;
  Node* x = graph.add_placeholder("x", std::nullopt);
  Node* s = call(graph, "sigmoid", {in(x)}, "s");
  Node* d1 = call(graph, "dropout", {in(s)}, "d1", {{"training", false}});
  Node* g = call(graph, "neg", {in(d1)}, "g");
  Node* d2 = call(graph, "dropout", {in(g)}, "d2", {{"training", false}});
  Node* t = call(graph, "tanh", {in(d2)}, "t");
  Node* d3 = call(graph, "dropout", {in(t)}, "d3", {{"training", true}});
  graph.set_output({in(d3)});
  CHECK(matches_of(compiled, graph) == R"(dropout_after_act @d1: s d1
)");
}
