// model.json's "buffers" (docs/model-format.md, "Buffers and parameters"): which constants are
// buffers rather than parameters, kept through load and save; a model without the key has
// parameters only; each malformed list is reported at its JSON pointer.
#include <catch2/catch.hpp>

#include <string>

#include "engine/io/model_json.h"

using namespace graft;

namespace {

const std::string kNodes = R"("nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "float32"}},
  {"name": "w", "op": "get_attr", "target": "w"},
  {"name": "m", "op": "get_attr", "target": "bn.running_mean"},
  {"name": "a", "op": "call_function", "target": "add", "args": [{"node": "x"}, {"node": "w"}]},
  {"name": "b", "op": "call_function", "target": "add", "args": [{"node": "a"}, {"node": "m"}]},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "b"}]]}]})";

/// A model with constants `w` and `bn.running_mean` and the top-level `buffers` text (a
/// member with its trailing comma, or "").
std::string model_text(const std::string& buffers) {
  return R"({"format": "graft.model", "version": 1,
  "tensors": {"w": {"dtype": "float32", "shape": [2], "data": [1, 2]},
              "bn.running_mean": {"dtype": "float32", "shape": [2], "data": [0, 0]}},
)" + buffers + kNodes;
}

struct Loaded {
  std::optional<Model> model;
  std::string diagnostics;
};

Loaded load(const std::string& text) {
  DiagnosticEngine diags;
  Loaded out;
  out.model = load_model_from_string(text, "model.json", ".", diags);
  out.diagnostics = diags.render();
  return out;
}

bool is_buffer(const Model& m, const std::string& name) {
  const ConstantTensor* t = m.graph->constants().find(name);
  REQUIRE(t != nullptr);
  return t->buffer;
}

}  // namespace

TEST_CASE("the constants 'buffers' lists are buffers, the others parameters, through a save",
          "[engine][model_json]") {
  Loaded l = load(model_text(R"("buffers": ["bn.running_mean"],)"));
  INFO(l.diagnostics);
  REQUIRE(l.model);
  CHECK(is_buffer(*l.model, "bn.running_mean"));
  CHECK_FALSE(is_buffer(*l.model, "w"));
  std::string saved = model_to_json_text(*l.model, "m.safetensors");
  CHECK(saved.find("  \"buffers\": [\n    \"bn.running_mean\"\n  ],\n  \"nodes\"") !=
        std::string::npos);
  // Saved constants go to the weights file: load the text back with them inline.
  std::string inline_again = saved;
  inline_again.replace(inline_again.find("\"weights\": \"m.safetensors\","),
                       std::string("\"weights\": \"m.safetensors\",").size(),
                       R"("tensors": {"w": {"dtype": "float32", "shape": [2], "data": [1, 2]},
              "bn.running_mean": {"dtype": "float32", "shape": [2], "data": [0, 0]}},)");
  Loaded again = load(inline_again);
  INFO(again.diagnostics);
  REQUIRE(again.model);
  CHECK(is_buffer(*again.model, "bn.running_mean"));
  CHECK_FALSE(is_buffer(*again.model, "w"));
  CHECK(model_to_json_text(*again.model, "m.safetensors") == saved);
}

TEST_CASE("a model without 'buffers' has parameters only and saves without the key",
          "[engine][model_json]") {
  Loaded l = load(model_text(""));
  INFO(l.diagnostics);
  REQUIRE(l.model);
  CHECK_FALSE(is_buffer(*l.model, "bn.running_mean"));
  CHECK_FALSE(is_buffer(*l.model, "w"));
  CHECK(model_to_json_text(*l.model, "").find("buffers") == std::string::npos);
}

TEST_CASE("a buffer no node reads is not saved in 'buffers'", "[engine][model_json]") {
  Loaded l = load(R"({"format": "graft.model", "version": 1,
  "tensors": {"unread": {"dtype": "float32", "shape": [1], "data": [1]}},
  "buffers": ["unread"],
  "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2], "dtype": "float32"}},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "x"}]]}]})");
  INFO(l.diagnostics);
  REQUIRE(l.model);
  CHECK(is_buffer(*l.model, "unread"));
  CHECK(model_to_json_text(*l.model, "").find("buffers") == std::string::npos);
}

TEST_CASE("a malformed 'buffers' is reported at its JSON pointer", "[engine][model_json]") {
  using Case = std::pair<std::string, std::string>;
  const Case c = GENERATE(
      Case{R"("buffers": {"bn.running_mean": true},)",
           "model.json: /buffers: error: expected a list of the names of constants that are "
           "buffers, got object\n"},
      Case{R"("buffers": ["w", 3],)",
           "model.json: /buffers/1: error: expected the name of a constant, got 3\n"},
      Case{R"("buffers": ["bn.running_men"],)",
           "model.json: /buffers/0: error: 'bn.running_men' is not a constant of the model "
           "(neither in the weights file nor in \"tensors\") (did you mean "
           "'bn.running_mean'?)\n"},
      Case{R"("buffers": ["w", "bn.running_mean", "w"],)",
           "model.json: /buffers/2: error: constant 'w' is listed twice (first at /buffers/0)\n"},
      Case{R"("buffers": ["bufers"], "bufers": [],)",
           "model.json: /bufers: error: unknown top-level key 'bufers' (did you mean "
           "'buffers'?)\n"
           "model.json: /buffers/0: error: 'bufers' is not a constant of the model (neither in "
           "the weights file nor in \"tensors\")\n"});
  INFO(c.first);
  Loaded l = load(model_text(c.first));
  CHECK_FALSE(l.model.has_value());
  CHECK(l.diagnostics == c.second);
}
