// Binding symbols in attributes: concretize_graph substitutes a bound symbol into the SymInt
// attributes of its clone before inference, and refuses a value that runs past the dim it
// indexes (Python's clamping would silently give fewer elements than the symbol says).
#include "eval/concretize.h"

#include <catch2/catch.hpp>

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
