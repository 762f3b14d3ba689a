// Binding symbols in attributes: concretize_graph substitutes a bound symbol into the SymInt
// attributes of its clone before inference, and refuses a value that runs past the dim it
// indexes (Python's clamping would silently give fewer elements than the symbol says).
#include "eval/concretize.h"

#include <catch2/catch.hpp>

#include <map>

#include "engine/io/model_json.h"

using namespace graft;

namespace {

// x[:, :T] of x: [N, 16]
const char* const kModel =
    R"({"format": "graft.model", "version": 1, "nodes": [)"
    R"({"name": "x", "op": "placeholder", "meta": {"shape": ["N", 16], "dtype": "float32"}},)"
    R"({"name": "c", "op": "call_function", "target": "slice", "args": [{"node": "x"}],)"
    R"( "kwargs": {"dim": 1, "end": "T"}},)"
    R"({"name": "output", "op": "output", "args": [[{"node": "c"}]]}]})";

Model load() {
  DiagnosticEngine diags;
  std::optional<Model> m = load_model_from_string(kModel, "m.json", ".", diags);
  INFO(diags.render());
  REQUIRE(m);
  return std::move(*m);
}

}  // namespace

TEST_CASE("a bound symbol replaces a symbolic attribute in the clone", "[eval][concretize]") {
  Model m = load();
  DiagnosticEngine diags;
  eval::ShapeBindings bindings;
  bindings.symbols = {{"N", 2}, {"T", 5}};
  std::unique_ptr<Graph> g = eval::concretize_graph(*m.graph, bindings, "m.json", diags);
  INFO(diags.render());
  REQUIRE(g);
  const Node* c = g->find("c");
  CHECK(c->attr("end") == AttrValue{int64_t{5}});
  CHECK(type_to_string(*c->type()) == "float32[2, 5]");
  // the original keeps its symbol
  CHECK(m.graph->find("c")->attr("end") == AttrValue{std::string("T")});
}

TEST_CASE("a symbol past the dim its attribute indexes is an error naming the node",
          "[eval][concretize]") {
  Model m = load();
  DiagnosticEngine diags;
  eval::ShapeBindings bindings;
  bindings.symbols = {{"N", 2}, {"T", 20}};
  CHECK_FALSE(eval::concretize_graph(*m.graph, bindings, "m.json", diags));
  CHECK(diags.render() ==
        "m.json: error: node 'c' (slice) computes [2, 16] at T=20, not [2, T]: a symbol's value "
        "runs past the dim it indexes\n");
}

TEST_CASE("an unbound symbol in an attribute says how to bind it", "[eval][concretize]") {
  Model m = load();
  DiagnosticEngine diags;
  eval::ShapeBindings bindings;
  bindings.symbols = {{"N", 2}};
  CHECK_FALSE(eval::concretize_graph(*m.graph, bindings, "m.json", diags));
  CHECK(diags.render() == "m.json: error: node 'c' (slice) has end=T, but no input shape binds "
                          "'T'; give its value (--dim T=N)\n");
}

namespace {

// y: [S, 8] (S = N*T) -> reshape to [N, T, 8], as nn.MultiheadAttention's output
const char* const kReshapeModel =
    R"({"format": "graft.model", "version": 1, "nodes": [)"
    R"({"name": "y", "op": "placeholder", "meta": {"shape": ["S", 8], "dtype": "float32"}},)"
    R"({"name": "r", "op": "call_function", "target": "reshape",)"
    R"( "args": [{"node": "y"}, ["N", "T", 8]], "meta": {"shape": ["N", "T", 8], "dtype": "float32"}},)"
    R"({"name": "output", "op": "output", "args": [[{"node": "r"}]]}]})";

Model load_reshape() {
  DiagnosticEngine diags;
  std::optional<Model> m = load_model_from_string(kReshapeModel, "m.json", ".", diags);
  INFO(diags.render());
  REQUIRE(m);
  return std::move(*m);
}

std::unique_ptr<Graph> concretize_reshape(const Model& m, int64_t rows,
                                          std::map<std::string, int64_t> symbols,
                                          std::string* diagnostics) {
  DiagnosticEngine diags;
  eval::ShapeBindings bindings;
  bindings.inputs = {{"y", Shape{rows, 8}}};
  bindings.symbols = std::move(symbols);
  std::unique_ptr<Graph> g = eval::concretize_graph(*m.graph, bindings, "m.json", diags);
  *diagnostics = diags.render();
  return g;
}

}  // namespace

TEST_CASE("bound symbols replace a reshape's symbolic sizes in the clone", "[eval][concretize]") {
  Model m = load_reshape();
  std::string diagnostics;
  std::unique_ptr<Graph> g = concretize_reshape(m, 15, {{"N", 3}, {"T", 5}}, &diagnostics);
  INFO(diagnostics);
  REQUIRE(g);
  const Node* r = g->find("r");
  CHECK(r->attr("shape") == AttrValue{std::vector<int64_t>{3, 5, 8}});
  CHECK(type_to_string(*r->type()) == "float32[3, 5, 8]");
  CHECK(m.graph->find("r")->attr("shape") ==
        AttrValue{SymInts{std::string("N"), std::string("T"), int64_t{8}}});
}

TEST_CASE("symbolic sizes that do not hold the input's elements are an error naming the node",
          "[eval][concretize]") {
  Model m = load_reshape();
  std::string diagnostics;
  CHECK_FALSE(concretize_reshape(m, 14, {{"N", 3}, {"T", 5}}, &diagnostics));
  CHECK(diagnostics == "m.json: error: node 'r' (reshape): cannot reshape [14, 8] (112 elements) "
                       "into [3, 5, 8] (120 elements)\n");
  CHECK_FALSE(concretize_reshape(m, 15, {{"N", 3}}, &diagnostics));
  CHECK(diagnostics == "m.json: error: node 'r' (reshape) has shape=[N, T, 8], but no input "
                       "shape binds 'T'; give its value (--dim T=N)\n");
}

TEST_CASE("a sum of symbols in an attribute is evaluated at the bound values",
          "[eval][concretize]") {
  // x[:, :T-1] and arange(0, 2*T) of x: [N, S]
  const char* const text =
      R"({"format": "graft.model", "version": 1, "nodes": [)"
      R"({"name": "x", "op": "placeholder", "meta": {"shape": ["N", "S"], "dtype": "float32"}},)"
      R"({"name": "c", "op": "call_function", "target": "slice", "args": [{"node": "x"}],)"
      R"( "kwargs": {"dim": 1, "end": "T-1"}},)"
      R"({"name": "a", "op": "call_function", "target": "arange", "args": [0, "2*T"]},)"
      R"({"name": "output", "op": "output", "args": [[{"node": "c"}, {"node": "a"}]]}]})";
  DiagnosticEngine diags;
  std::optional<Model> m = load_model_from_string(text, "m.json", ".", diags);
  INFO(diags.render());
  REQUIRE(m);
  eval::ShapeBindings bindings;
  bindings.symbols = {{"N", 2}, {"S", 8}, {"T", 5}};
  std::unique_ptr<Graph> g = eval::concretize_graph(*m->graph, bindings, "m.json", diags);
  INFO(diags.render());
  REQUIRE(g);
  CHECK(g->find("c")->attr("end") == AttrValue{int64_t{4}});
  CHECK(type_to_string(*g->find("c")->type()) == "float32[2, 4]");
  CHECK(g->find("a")->attr("end") == AttrValue{int64_t{10}});
  CHECK(type_to_string(*g->find("a")->type()) == "int64[10]");
  bindings.symbols = {{"N", 2}, {"S", 8}};
  CHECK_FALSE(eval::concretize_graph(*m->graph, bindings, "m.json", diags));
  CHECK(diags.render().find("m.json: error: node 'c' (slice) has end=T-1, but no input shape "
                            "binds 'T'; give its value (--dim T=N)\n") != std::string::npos);
}
