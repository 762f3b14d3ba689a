// dsl/test_graph: the graphs of `test` blocks — inputs, params (literal, filled, random,
// positive), ops bound and typed, names, and reproducible random values.
#include "dsl/test_graph.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "engine/io/graph_printer.h"
#include "engine/ir/verifier.h"
#include "tests/ruletest/ruletest_testing.h"

using namespace graft;
using graft::testing::graph_of;

namespace {

std::vector<float> floats(const Graph& g, const std::string& constant) {
  const ConstantTensor* t = g.constants().find(constant);
  REQUIRE(t != nullptr);
  return std::vector<float>(t->f32(), t->f32() + t->numel());
}

}  // namespace

TEST_CASE("a test graph has typed inputs, params and ops in written order", "[ruletest][graph]") {
  dsl::TestGraph g = graph_of(R"(
    graph(x: f32[1, 3, 8, 8]) {
      w = param f32[4, 3, 3, 3]
      y = conv2d(x, w, none, stride=2, padding=[1, 1])
      return relu(y) * 0.5
    })");
  DiagnosticEngine diags;
  CHECK(verify_graph(*g.graph, diags));
  // clang-format off
  CHECK(format_graph_table(*g.graph) ==
        "opcode         name    target  args          kwargs                             type\n"
        "-------------  ------  ------  ------------  ---------------------------------  -------------------\n"
        "placeholder    x       x       ()            {}                                 float32[1, 3, 8, 8]\n"
        "get_attr       w       w       ()            {}                                 float32[4, 3, 3, 3]\n"
        "call_function  y       conv2d  (x, w, None)  {stride: [2, 2], padding: [1, 1]}  float32[1, 4, 4, 4]\n"
        "call_function  relu    relu    (y,)          {}                                 float32[1, 4, 4, 4]\n"
        "call_function  mul     mul     (relu, 0.5)   {}                                 float32[1, 4, 4, 4]\n"
        "output         output  output  (mul,)        {}\n");
  // clang-format on
  CHECK(g.random_constants == std::set<std::string>{"w"});
}

TEST_CASE("param values: a list, a fill value, random and positive", "[ruletest][graph]") {
  dsl::TestGraph g = graph_of(R"(
    graph(x: f32[4]) {
      a = param f32[4] = [1, 2.5, -3, 4]
      b = param f32[4] = 0.5
      r = param f32[64]
      p = param f32[64] positive
      return x * a + b + sum(r) + sum(p)
    })");
  CHECK(floats(*g.graph, "a") == std::vector<float>{1, 2.5f, -3, 4});
  CHECK(floats(*g.graph, "b") == std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f});
  std::vector<float> r = floats(*g.graph, "r");
  std::vector<float> p = floats(*g.graph, "p");
  CHECK(*std::min_element(r.begin(), r.end()) >= -1.0f);
  CHECK(*std::max_element(r.begin(), r.end()) < 1.0f);
  CHECK(*std::min_element(r.begin(), r.end()) < 0.0f);  // uniform in [-1, 1): some negative
  CHECK(*std::min_element(p.begin(), p.end()) >= 0.5f);
  CHECK(*std::max_element(p.begin(), p.end()) < 1.5f);
  CHECK(g.random_constants == std::set<std::string>{"p", "r"});
}

TEST_CASE("random params are reproducible for a seed and differ between seeds",
          "[ruletest][graph]") {
  const char* text = "graph(x: f32[8]) { w = param f32[8]\n return x * w }";
  CHECK(floats(*graph_of(text, 7).graph, "w") == floats(*graph_of(text, 7).graph, "w"));
  CHECK(floats(*graph_of(text, 7).graph, "w") != floats(*graph_of(text, 8).graph, "w"));
  CHECK(dsl::rule_test_seed("a", 0) != dsl::rule_test_seed("b", 0));
  CHECK(dsl::rule_test_seed("a", 0) != dsl::rule_test_seed("a", 1));
  CHECK(dsl::rule_test_seed("a", 3) == dsl::rule_test_seed("a", 3));
}

TEST_CASE("params of other dtypes are stored in their dtype", "[ruletest][graph]") {
  dsl::TestGraph g = graph_of(R"(
    graph(x: f32[2]) {
      i = param i64[2] = [3, -4]
      h = param f16[2] = [1.0, -2.5]
      return x
    })");
  const ConstantTensor* i = g.graph->constants().find("i");
  const ConstantTensor* h = g.graph->constants().find("h");
  REQUIRE(i != nullptr);
  REQUIRE(h != nullptr);
  int64_t iv[2];
  std::memcpy(iv, i->data, sizeof iv);
  CHECK(iv[0] == 3);
  CHECK(iv[1] == -4);
  uint16_t hv[2];
  std::memcpy(hv, h->data, sizeof hv);
  CHECK(hv[0] == 0x3c00);  // 1.0
  CHECK(hv[1] == 0xc100);  // -2.5
}

TEST_CASE("variadic operands and keyword arguments bind to the schema", "[ruletest][graph]") {
  dsl::TestGraph g = graph_of(R"(
    graph(a: f32[2, 3], b: f32[2, 5]) {
      c = cat([a, relu(b)], dim=1)
      return c
    })");
  const Node* c = g.graph->find("c");
  REQUIRE(c != nullptr);
  CHECK(format_node_call(*c) == "cat([a, relu], dim=1)");
  CHECK(type_to_string(*c->type()) == "float32[2, 8]");
}

TEST_CASE("an expected graph reads the test graph's inputs", "[ruletest][graph]") {
  dsl::TestGraph e = graft::testing::expected_graph_of(
      "graph(x: f32[2, 3], y: f32[2, 3]) { return x + y }", "graph { return relu(y) }");
  std::vector<Node*> inputs = e.graph->placeholders();
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[0]->name() == "x");
  CHECK(format_node_call(*e.graph->output()->input_node(0)) == "relu(y)");
}
