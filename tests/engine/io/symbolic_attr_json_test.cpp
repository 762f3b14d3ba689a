// Symbolic attributes in model.json: a SymInt parameter holds a symbol as its name, a JSON
// string ("end": "T"), which saves and prints back as written; anywhere else a string where
// an int is declared stays a located error.
#include <catch2/catch.hpp>

#include "engine/io/graph_printer.h"
#include "engine/io/model_json.h"

using namespace graft;

namespace {

const std::string kHead =
    R"({"format": "graft.model", "version": 1, "nodes": [)"
    R"({"name": "x", "op": "placeholder", "meta": {"shape": ["N", "T", 16], "dtype": "float32"}},)";

/// A model whose node `c` is `call` (a JSON object body) applied to x.
std::string model_with(const std::string& call) {
  return kHead + R"({"name": "c", "op": "call_function", )" + call + "}," +
         R"({"name": "output", "op": "output", "args": [[{"node": "c"}]]}]})";
}

std::optional<Model> load(const std::string& text, std::string* diagnostics) {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(text, "model.json", ".", diags);
  *diagnostics = diags.render();
  return model;
}

}  // namespace

TEST_CASE("a symbolic slice end loads, prints bare and saves as written", "[engine][symint]") {
  std::string diagnostics;
  std::optional<Model> m = load(
      model_with(R"("target": "slice", "args": [{"node": "x"}], "kwargs": {"dim": 2, "end": "T"})"),
      &diagnostics);
  INFO(diagnostics);
  REQUIRE(m);
  const Node* c = m->graph->find("c");
  REQUIRE(c != nullptr);
  CHECK(c->attr("end") == AttrValue{std::string("T")});
  CHECK(type_to_string(*c->type()) == "float32[N, T, T]");
  CHECK(format_node_kwargs(*c) == "{dim: 2, end: T}");
  const std::string saved = model_to_json_text(*m, "");
  CHECK(saved.find(R"("end":"T")") != std::string::npos);
  std::optional<Model> again = load(saved, &diagnostics);
  REQUIRE(again);
  CHECK(model_to_json_text(*again, "") == saved);
}

TEST_CASE("arange takes a symbolic end and gives that many values", "[engine][symint]") {
  std::string diagnostics;
  std::optional<Model> m = load(
      model_with(R"("target": "arange", "args": [0, "T"], "kwargs": {"dtype": "int64"})"),
      &diagnostics);
  INFO(diagnostics);
  REQUIRE(m);
  CHECK(type_to_string(*m->graph->find("c")->type()) == "int64[T]");
}

TEST_CASE("a symbol where no SymInt is declared is a located error", "[engine][symint]") {
  std::string diagnostics;
  CHECK_FALSE(load(model_with(R"("target": "select", "args": [{"node": "x"}, 1, "T"])"),
                   &diagnostics));
  CHECK(diagnostics == "model.json: /nodes/1/args/2: error: select(): bad value for 'index': "
                       "expected int, got str 'T'\n");
  CHECK_FALSE(load(model_with(R"("target": "slice", "args": [{"node": "x"}], )"
                              R"("kwargs": {"step": "T"})"),
                   &diagnostics));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/step: error: slice(): bad value for "
                       "'step': expected int, got str 'T'\n");
  CHECK_FALSE(load(model_with(R"("target": "slice", "args": [{"node": "x"}], )"
                              R"("kwargs": {"end": "2T"})"),
                   &diagnostics));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/end: error: slice(): bad value for "
                       "'end': expected int or a symbol such as 'T', got str '2T'\n");
}
