// ruletest/graph_match: equality up to node names by a canonical walk from the outputs —
// what is equal, each kind of difference with its reason, and the marked diff.
#include "ruletest/graph_match.h"

#include <catch2/catch.hpp>

#include "tests/ruletest/ruletest_testing.h"

using namespace graft;
using graft::testing::graph_of;

namespace {

ruletest::GraphMatch match(const std::string& actual, const std::string& expected) {
  dsl::TestGraph a = graph_of(actual, 1);
  dsl::TestGraph e = graph_of(expected, 2);
  ruletest::GraphMatchOptions options;
  options.any_constants = e.random_constants;
  return ruletest::match_graphs(*a.graph, *e.graph, options);
}

}  // namespace

TEST_CASE("graphs that differ only in names are equal", "[ruletest][match]") {
  ruletest::GraphMatch m =
      match("graph(x: f32[2, 3]) { a = relu(x)\n b = sigmoid(x)\n return a * b }",
            "graph(x: f32[2, 3]) { p = relu(x)\n q = sigmoid(x)\n return mul(p, q) }");
  INFO(m.reason);
  CHECK(m.equal);
  CHECK(m.reason.empty());
}

TEST_CASE("a random expected param matches any constant of its type", "[ruletest][match]") {
  CHECK(match("graph(x: f32[2, 3]) { w = param f32[3]\n return x * w }",
              "graph(x: f32[2, 3]) { k = param f32[3]\n return x * k }")
            .equal);
  ruletest::GraphMatch m = match("graph(x: f32[2, 3]) { w = param f32[3]\n return x * w }",
                                 "graph(x: f32[2, 3]) { k = param f32[1, 3]\n return x * k }");
  CHECK_FALSE(m.equal);
  CHECK(m.reason ==
        "operand 'other' of 'mul': constant 'w' is float32[3], expected "
        "float32[1, 3] like 'k'");
}

TEST_CASE("an expected param matches constants of its kind: a buffer only a buffer",
          "[ruletest][match]") {
  CHECK(match("graph(x: f32[2, 3]) { w = param f32[3] buffer\n return x * w }",
              "graph(x: f32[2, 3]) { k = param f32[3] buffer\n return x * k }")
            .equal);
  ruletest::GraphMatch m = match("graph(x: f32[2, 3]) { w = param f32[3] buffer\n return x * w }",
                                 "graph(x: f32[2, 3]) { k = param f32[3]\n return x * k }");
  CHECK_FALSE(m.equal);
  CHECK(m.reason ==
        "operand 'other' of 'mul': constant 'w' is a buffer, expected a parameter like 'k'");
  m = match("graph(x: f32[2, 3]) { w = param f32[3]\n return x * w }",
            "graph(x: f32[2, 3]) { k = param f32[3] buffer\n return x * k }");
  CHECK(m.reason ==
        "operand 'other' of 'mul': constant 'w' is a parameter, expected a buffer like 'k'");
}

TEST_CASE("a literal expected param matches by value", "[ruletest][match]") {
  CHECK(match("graph(x: f32[2, 2]) { w = param f32[2] = [1, 2]\n return x * w }",
              "graph(x: f32[2, 2]) { w = param f32[2] = [1, 2]\n return x * w }")
            .equal);
  ruletest::GraphMatch m =
      match("graph(x: f32[2, 2]) { w = param f32[2] = [1, 2]\n return x * w }",
            "graph(x: f32[2, 2]) { w = param f32[2] = [1, 3]\n return x * w }");
  CHECK_FALSE(m.equal);
  CHECK(m.reason ==
        "operand 'other' of 'mul': constant 'w' differs from the values of 'w' at "
        "element 1: 2, expected 3");
}

TEST_CASE("graph differences are reported from the outputs down", "[ruletest][match]") {
  using Row = std::tuple<std::string, std::string, std::string>;
  auto [actual, expected, reason] = GENERATE(table<std::string, std::string, std::string>({
      Row{"graph(x: f32[2, 3]) { return relu(x) }", "graph(x: f32[2, 3]) { return relu6(x) }",
          "output 0: expected 'relu6 = relu6(x)', got 'relu = relu(x)'"},
      Row{"graph(x: f32[2, 3]) { return softmax(x, dim=0) }",
          "graph(x: f32[2, 3]) { return softmax(x, dim=1) }",
          "output 0: 'softmax' has dim=0, expected 1"},
      Row{"graph(x: f32[2, 3], y: f32[2, 3]) { return x - y }",
          "graph(x: f32[2, 3], y: f32[2, 3]) { return y - x }",
          "operand 'input' of 'sub': expected input 'y', got input 'x'"},
      Row{"graph(x: f32[2, 3]) { return x * 2 }", "graph(x: f32[2, 3]) { return x * 3 }",
          "operand 'other' of 'mul': expected the number 3, got the number 2"},
      Row{"graph(x: f32[2, 3]) { return relu(x), x }", "graph(x: f32[2, 3]) { return relu(x) }",
          "the graph returns 2 values, expected 1"},
      // A diamond in one graph, two copies in the other.
      Row{"graph(x: f32[2, 3]) { r = relu(x)\n return r + r }",
          "graph(x: f32[2, 3]) { return relu(x) + relu(x) }",
          "operand 'other' of 'add': expected 'relu_1 = relu(x)', got 'r = relu(x)' (the graphs "
          "share values differently: one uses a value twice where the other has two)"},
      // Dead code left behind is a difference too.
      Row{"graph(x: f32[2, 3]) { d = sigmoid(x)\n return relu(x) }",
          "graph(x: f32[2, 3]) { return relu(x) }",
          "the graph has a node the expected graph lacks: 'd = sigmoid(x)'"},
  }));
  ruletest::GraphMatch m = match(actual, expected);
  CHECK_FALSE(m.equal);
  CHECK(m.reason == reason);
}

TEST_CASE("the diff marks the nodes that differ in both graphs", "[ruletest][match]") {
  ruletest::GraphMatch m = match("graph(x: f32[2, 3]) { return sigmoid(relu(x)) }",
                                 "graph(x: f32[2, 3]) { return sigmoid(relu6(x)) }");
  CHECK(m.reason ==
        "operand 'input' of 'sigmoid': expected 'relu6 = relu6(x)', got 'relu = relu(x)'");
  CHECK(m.expected ==
        "      x: float32[2, 3]\n"
        "    ! relu6 = relu6(x) : float32[2, 3]\n"
        "      sigmoid = sigmoid(relu6) : float32[2, 3]\n"
        "      return sigmoid\n");
  CHECK(m.actual ==
        "      x: float32[2, 3]\n"
        "    ! relu = relu(x) : float32[2, 3]\n"
        "      sigmoid = sigmoid(relu) : float32[2, 3]\n"
        "      return sigmoid\n");
}
