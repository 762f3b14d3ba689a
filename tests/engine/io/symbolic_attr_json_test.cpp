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
                       "'end': expected int or a symbol such as 'T' (or a sum of multiples of "
                       "symbols and an int, 'T-1'), got str '2T'\n");
}

TEST_CASE("a sum of symbols as a slice's end loads, prints bare and saves as written",
          "[engine][symint]") {
  std::string diagnostics;
  std::optional<Model> m = load(
      model_with(R"("target": "slice", "args": [{"node": "x"}], "kwargs": {"dim": 1, "end": "T-1"})"),
      &diagnostics);
  INFO(diagnostics);
  REQUIRE(m);
  const Node* c = m->graph->find("c");
  CHECK(type_to_string(*c->type()) == "float32[N, ?, 16]");
  CHECK(format_node_kwargs(*c) == "{dim: 1, end: T-1}");
  const std::string saved = model_to_json_text(*m, "");
  CHECK(saved.find(R"("end":"T-1")") != std::string::npos);
  std::optional<Model> again = load(saved, &diagnostics);
  REQUIRE(again);
  CHECK(model_to_json_text(*again, "") == saved);
}

TEST_CASE("a reshape to symbolic sizes loads, prints bare and saves as written",
          "[engine][symint]") {
  std::string diagnostics;
  std::optional<Model> m = load(
      model_with(R"("target": "reshape", "args": [{"node": "x"}, ["N", -1, 4, "T"]])"),
      &diagnostics);
  INFO(diagnostics);
  REQUIRE(m);
  const Node* c = m->graph->find("c");
  REQUIRE(c != nullptr);
  CHECK(c->attr("shape") == AttrValue{SymInts{std::string("N"), int64_t{-1}, int64_t{4},
                                              std::string("T")}});
  CHECK(type_to_string(*c->type()) == "float32[N, 4, 4, T]");
  CHECK(format_node_kwargs(*c) == "{shape: [N, -1, 4, T]}");
  const std::string saved = model_to_json_text(*m, "");
  CHECK(saved.find(R"("shape":["N",-1,4,"T"])") != std::string::npos);
  std::optional<Model> again = load(saved, &diagnostics);
  REQUIRE(again);
  CHECK(model_to_json_text(*again, "") == saved);
}

TEST_CASE("an unflatten to symbolic sizes loads with its inferred shape", "[engine][symint]") {
  std::string diagnostics;
  std::optional<Model> m = load(
      model_with(R"("target": "unflatten", "args": [{"node": "x"}, 2, [4, "S"]])"), &diagnostics);
  INFO(diagnostics);
  REQUIRE(m);
  CHECK(type_to_string(*m->graph->find("c")->type()) == "float32[N, T, 4, S]");
  CHECK(format_node_kwargs(*m->graph->find("c")) == "{dim: 2, sizes: [4, S]}");
}

TEST_CASE("a list of numbers where SymInt[] is declared is an int list", "[engine][symint]") {
  std::string diagnostics;
  std::optional<Model> m = load(
      model_with(R"("target": "reshape", "args": [{"node": "x"}], "kwargs": {"shape": [-1, 16]})"),
      &diagnostics);
  INFO(diagnostics);
  REQUIRE(m);
  CHECK(m->graph->find("c")->attr("shape") == AttrValue{std::vector<int64_t>{-1, 16}});
}

TEST_CASE("a bad item of a symbolic list is a located error at the item", "[engine][symint]") {
  std::string diagnostics;
  auto reshape_to = [&](const std::string& shape) {
    return load(model_with(R"("target": "reshape", "args": [{"node": "x"}], "kwargs": {"shape": )" +
                           shape + "}"),
                &diagnostics);
  };
  CHECK_FALSE(reshape_to(R"(["N", "2*T", 16])"));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/shape/1: error: reshape(): bad value for "
                       "'shape': expected an int or a symbol such as 'T', got str '2*T'\n");
  CHECK_FALSE(reshape_to(R"(["N", true])"));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/shape/1: error: reshape(): bad value for "
                       "'shape': expected an int or a symbol such as 'T', got boolean true\n");
  CHECK_FALSE(reshape_to(R"([1.5, "T"])"));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/shape/0: error: reshape(): bad value for "
                       "'shape': expected an int or a symbol such as 'T', got number 1.5\n");
  CHECK_FALSE(reshape_to(R"(["N", 18446744073709551615])"));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/shape/1: error: reshape(): bad value for "
                       "'shape': integer 18446744073709551615 does not fit in int64\n");
  CHECK_FALSE(reshape_to(R"("T")"));
  CHECK(diagnostics == "model.json: /nodes/1/kwargs/shape: error: reshape(): bad value for "
                       "'shape': expected a list of ints and symbols, got str 'T'\n");
  // a symbol where the list is int[], not SymInt[]
  CHECK_FALSE(load(model_with(R"("target": "expand", "args": [{"node": "x"}, ["N", -1, 16]])"),
                   &diagnostics));
  CHECK(diagnostics == "model.json: /nodes/1/args/1: error: expand(): bad value for 'size': "
                       "a list attribute holds only numbers, got string \"N\"\n");
}
