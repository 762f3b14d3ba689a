// Non-finite floats in model.json (docs/decisions/0007-non-finite-floats.md): the strings
// "inf", "-inf" and "nan" where a float or Scalar attribute or a scalar operand is expected,
// read exactly and written back as they were; any other string there is a located error.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/io/model_json.h"

using namespace graft;

namespace {

/// A model with one call `target(x, <args>)` on a float32[2, 3] input.
std::string call_model(const std::string& target, const std::string& args) {
  return R"({"format": "graft.model", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2, 3], "dtype": "float32"}},
    {"name": "y", "op": "call_function", "target": ")" +
         target + R"(", "args": [{"node": "x"}, )" + args + R"(]},
    {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
}

struct Loaded {
  std::optional<Model> model;
  std::string diagnostics;
};

Loaded load_text(const std::string& text) {
  DiagnosticEngine diags;
  Loaded out;
  out.model = load_model_from_string(text, "model.json", ".", diags);
  out.diagnostics = diags.render();
  return out;
}

const Node& call_node(const Model& model) {
  const Node* y = model.graph->find("y");
  REQUIRE(y != nullptr);
  return *y;
}

}  // namespace

TEST_CASE("the strings inf, -inf and nan are those floats in scalar operands and attributes",
          "[engine][model_json]") {
  SECTION("a scalar operand") {
    Loaded l = load_text(call_model("add", R"("-inf")"));
    INFO(l.diagnostics);
    REQUIRE(l.model);
    const Input& other = call_node(*l.model).inputs()[1];
    REQUIRE(other.is_scalar());
    CHECK(other.scalar.value == -INFINITY);
    CHECK_FALSE(other.scalar.is_int);
  }
  SECTION("a Scalar attribute") {
    Loaded l = load_text(call_model("clamp", R"("nan", "inf")"));
    INFO(l.diagnostics);
    REQUIRE(l.model);
    const Node& clamp = call_node(*l.model);
    CHECK(std::isnan(std::get<double>(clamp.attrs()[0])));
    CHECK(std::get<double>(clamp.attrs()[1]) == INFINITY);
  }
  SECTION("a float attribute") {
    Loaded l = load_text(call_model("hardtanh", R"("-inf", 0.5)"));
    INFO(l.diagnostics);
    REQUIRE(l.model);
    CHECK(std::get<double>(call_node(*l.model).attrs()[0]) == -INFINITY);
  }
}

TEST_CASE("non-finite floats are saved as their strings and read back to the same bytes",
          "[engine][model_json]") {
  Loaded l = load_text(call_model("clamp", R"(-1.5, "inf")"));
  INFO(l.diagnostics);
  REQUIRE(l.model);
  // A scalar operand that a rewrite made -inf, beside the attributes the file gave.
  Loaded add = load_text(call_model("add", R"("-inf")"));
  REQUIRE(add.model);
  for (const Loaded* loaded : {&l, &add}) {
    std::string saved = model_to_json_text(*loaded->model, "");
    Loaded again = load_text(saved);
    INFO(saved << "\n" << again.diagnostics);
    REQUIRE(again.model);
    CHECK(model_to_json_text(*again.model, "") == saved);
  }
  CHECK_THAT(model_to_json_text(*l.model, ""), Catch::Contains(R"("kwargs":{"min":-1.5,"max":"inf"})"));
  CHECK_THAT(model_to_json_text(*add.model, ""), Catch::Contains(R"([{"node":"x"},"-inf"])"));
}

TEST_CASE("a string that is not a non-finite float is rejected where a float is expected",
          "[engine][model_json][bad]") {
  const char* const kHint =
      " (model.json writes a float that is not finite as \"inf\", \"-inf\" or \"nan\")\n";
  CHECK(load_text(call_model("add", R"("-Infinity")")).diagnostics ==
        std::string("model.json: /nodes/1/args/1: error: expected a node reference "
                    "{\"node\": name} or a number, got \"-Infinity\"") +
            kHint);
  CHECK(load_text(call_model("clamp", R"("NaN")")).diagnostics ==
        std::string("model.json: /nodes/1/args/1: error: clamp(): bad value for 'min': "
                    "expected a number, got str \"NaN\"") +
            kHint);
  // A str attribute keeps its strings: "inf" is no float there.
  Loaded gelu = load_text(call_model("gelu", R"("inf")"));
  CHECK_FALSE(gelu.model);
  CHECK_THAT(gelu.diagnostics, Catch::Contains("approximate must be 'none' or 'tanh', got 'inf'"));
  // An int attribute does not read them either.
  Loaded softmax = load_text(call_model("softmax", R"("inf")"));
  CHECK_FALSE(softmax.model);
  CHECK_THAT(softmax.diagnostics, Catch::Contains("expected int, got str 'inf'"));
}
