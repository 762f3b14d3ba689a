// The `where` conditions on constants (docs/rules.md §6): param(w) and buffer(w) tell an
// nn.Parameter from a registered buffer (model.json's "buffers"), value(w) compares every
// element with numbers; each fails for a value that is not a constant. Also what a folded
// constant becomes: a buffer only when computed from buffers alone.
#include <catch2/catch.hpp>

#include <string>

#include "engine/match/match_conditions.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

std::string attr(const std::string& name, const std::string& target) {
  return R"({"name": ")" + name + R"(", "op": "get_attr", "target": ")" + target + R"("})";
}

/// x: float32[4]; constants p (a parameter) and b (a buffer), `data` holding their elements;
/// y = x + p, z = y + b, out = z + x (an add of no constant).
Model three_adds(const std::string& p_data = "[1, 1, 1, 1]",
                 const std::string& b_data = "[1, 1, 1, 1]") {
  std::string text = R"({"format": "graft.model", "version": 1,
    "tensors": {"p": {"dtype": "float32", "shape": [4], "data": )" + p_data + R"(},
                "b": {"dtype": "float32", "shape": [4], "data": )" + b_data + R"(}},
    "buffers": ["b"],
    "nodes": [)" + join({input("x", "[4]"), attr("p", "p"), attr("b", "b"),
                          call("y", "add", ref("x") + ", " + ref("p")),
                          call("z", "add", ref("y") + ", " + ref("b")),
                          call("out", "add", ref("z") + ", " + ref("x")), output({"out"})}) +
                     "]}";
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(text, "test.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  return std::move(*model);
}

/// `add(a, w)`, in this order, becomes `sub(a, w)` (a marker) where `condition` holds.
RuleSet marking_rule(const std::string& condition) {
  return rules_from_text("rule mark { pattern(a, w) { return ordered add(a, w) } where " +
                         condition +
                         " replacement { return sub(a, w) } }");
}

/// The ops of `m` after the marking rule with `condition` ran.
std::string marked(Model m, const std::string& condition) {
  Rewritten r = rewrite(*m.graph, marking_rule(condition));
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  return ops_of(*m.graph);
}

}  // namespace

TEST_CASE("buffer(w) and param(w) single out buffers and parameters", "[rewrite][conditions]") {
  CHECK(marked(three_adds(), "buffer(w)") == "add sub add -> add");
  CHECK(marked(three_adds(), "param(w)") == "sub add add -> add");
  // Negated, they also hold for a value that is not a constant (out's x).
  CHECK(marked(three_adds(), "not buffer(w)") == "sub add sub -> sub");
  CHECK(marked(three_adds(), "not param(w)") == "add sub sub -> sub");
}

TEST_CASE("value(w) holds when every element satisfies the comparison",
          "[rewrite][conditions]") {
  using Case = std::pair<const char*, const char*>;
  // p = [1, 1, 1, 1.005], b = [0, 0.5, 1, 1]; out = z + x reads no constant.
  const Case c = GENERATE(Case{"value(w) == 1", "add add add -> add"},
                          Case{"value(w) == 1 ~ 0.01", "sub add add -> add"},
                          Case{"value(w) != 0", "sub add add -> add"},
                          Case{"value(w) >= 0", "sub sub add -> add"},
                          Case{"value(w) > 0", "sub add add -> add"},
                          Case{"value(w) < 1", "add add add -> add"},
                          Case{"value(w) <= 1.005", "sub sub add -> add"},
                          Case{"value(w) in 0..1", "add sub add -> add"},
                          Case{"value(w) in {0, 0.5, 1}", "add sub add -> add"},
                          Case{"value(w) in {1, 1.005 ~ 1e-6}", "sub add add -> add"},
                          Case{"not value(w) == 1 ~ 0.01", "add sub sub -> sub"});
  INFO(c.first);
  Model m = three_adds("[1, 1, 1, 1.005]", "[0, 0.5, 1, 1]");
  CHECK(marked(std::move(m), c.first) == c.second);
}

TEST_CASE("value(w) reads bools and integers as numbers", "[rewrite][conditions]") {
  std::string text = R"({"format": "graft.model", "version": 1,
    "tensors": {"mask": {"dtype": "bool", "shape": [3], "data": [true, true, true]},
                "ids": {"dtype": "int64", "shape": [3], "data": [0, 2, 4]}},
    "nodes": [)" + join({input("x", "[3]"), attr("mask", "mask"), attr("ids", "ids"),
                          call("f", "masked_fill", ref("x") + ", " + ref("mask") + ", 0.0"),
                          call("g", "add", ref("f") + ", " + ref("ids")), output({"g"})}) +
                     "]}";
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(text, "test.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  RuleSet rules = rules_from_text(R"(
    rule all_masked { pattern(x, m) { return masked_fill(x, m, 0.0) } where value(m) == true
                      replacement { return x * 0.0 } }
    rule even_ids { pattern(a, i) { return add(a, i) } where value(i) in {0, 2, 4}
                    replacement { return sub(a, i) } })");
  Rewritten r = rewrite(*model->graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  CHECK(ops_of(*model->graph) == "mul sub -> sub");
}

TEST_CASE("explain names the element that fails value(w) and the kind that fails buffer(w)",
          "[rewrite][conditions]") {
  Model m = three_adds("[1, 1, 7, 1]");
  RuleSet value_rule = marking_rule("value(w) == 1");
  CompiledRules compiled(value_rule);  // keeps a reference to its rules
  DiagnosticEngine diags;
  std::optional<Explanation> why = explain_match(*m.graph, compiled, "mark", "y", diags);
  REQUIRE(why);
  CHECK_FALSE(why->matched);
  CHECK(why->reason.find("where value(w) == 1 (test.rules:1:62): element 2 of 'p' is 7") !=
        std::string::npos);
  RuleSet buffer_rules = marking_rule("buffer(w)");
  CompiledRules buffer_rule(buffer_rules);
  why = explain_match(*m.graph, buffer_rule, "mark", "y", diags);
  REQUIRE(why);
  CHECK(why->reason.find("'p' (constant 'p') is a parameter") != std::string::npos);
  why = explain_match(*m.graph, buffer_rule, "mark", "out", diags);
  REQUIRE(why);
  CHECK(why->reason.find("'x' is not a constant") != std::string::npos);
}

TEST_CASE("a folded constant is a buffer only when computed from buffers alone",
          "[rewrite][conditions]") {
  // (a + c1) + c2 -> a + fold(c1 + c2), with p and b in either role.
  RuleSet rules = rules_from_text(R"(
    rule merge { pattern(a, c1, c2) { return add(add(a, c1), c2) } where const(c1, c2)
                 replacement { return add(a, fold(c1 + c2)) } })");
  auto folded_is_buffer = [&](const std::string& first, const std::string& second) {
    std::string text = R"({"format": "graft.model", "version": 1,
      "tensors": {"p": {"dtype": "float32", "shape": [4], "data": [1, 2, 3, 4]},
                  "b": {"dtype": "float32", "shape": [4], "data": [5, 6, 7, 8]},
                  "b2": {"dtype": "float32", "shape": [4], "data": [9, 9, 9, 9]}},
      "buffers": ["b", "b2"],
      "nodes": [)" + join({input("x", "[4]"), attr("c1", first), attr("c2", second),
                            call("y", "add", ref("x") + ", " + ref("c1")),
                            call("z", "add", ref("y") + ", " + ref("c2")), output({"z"})}) +
                       "]}";
    DiagnosticEngine diags;
    std::optional<Model> model = load_model_from_string(text, "test.json", ".", diags);
    INFO(diags.render());
    REQUIRE(model);
    Rewritten r = rewrite(*model->graph, rules);
    INFO(r.diagnostics);
    REQUIRE(r.result.ok);
    REQUIRE(ops_of(*model->graph) == "add -> add");
    const Node* sum = model->graph->output()->input_node(0);
    const ConstantTensor* t = model->graph->constant(*sum->input_node(1));
    REQUIRE(t != nullptr);
    bool buffer = t->buffer;
    // And it is saved so.
    std::string saved = model_to_json_text(*model, "w.safetensors");
    CHECK((saved.find("\"buffers\"") != std::string::npos) == buffer);
    return buffer;
  };
  CHECK(folded_is_buffer("b", "b2"));
  CHECK_FALSE(folded_is_buffer("p", "b"));
  CHECK_FALSE(folded_is_buffer("b", "p"));
}
