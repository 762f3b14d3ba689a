// Rules over symbolic attributes: a `$` variable binds a symbol as it binds a number and a
// replacement writes it back; a numeric condition on a symbol is false, not an error.
#include <catch2/catch.hpp>

#include "engine/io/graph_printer.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

// relu(x[:, :$e]) -> relu(x)[:, :$e], when the condition holds
std::string relu_first(const std::string& condition) {
  return "rule relu_first {\n"
         "  pattern(x) { return relu(slice(x, dim=1, end=$e)) }\n" +
         condition +
         "  replacement { return slice(relu(x), dim=1, end=$e) }\n"
         "}\n";
}

std::string sliced(const std::string& end) {
  return join({input("x", "[2, 8]"), call("s", "slice", ref("x"), "\"dim\": 1, \"end\": " + end),
               call("r", "relu", ref("s")), output({"r"})});
}

}  // namespace

TEST_CASE("a $ variable carries a symbol from the pattern to the replacement",
          "[rewrite][symint]") {
  RuleSet rules = rules_from_text(relu_first(""));
  Model m = model_from_nodes(sliced("\"T\""));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(ops_of(*m.graph) == "relu slice -> slice");
  const Node* out = m.graph->output()->input(0).node;
  CHECK(out->attr("end") == AttrValue{std::string("T")});
  CHECK(type_to_string(*out->type()) == "float32[2, T]");
}

TEST_CASE("a numeric condition on a symbol is false", "[rewrite][symint]") {
  RuleSet rules = rules_from_text(relu_first("  where $e > 3\n"));
  Model symbolic = model_from_nodes(sliced("\"T\""));
  Rewritten r = rewrite(*symbolic.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.diagnostics.empty());
  CHECK(ops_of(*symbolic.graph) == "slice relu -> relu");
  Model concrete = model_from_nodes(sliced("5"));
  CHECK(rewrite(*concrete.graph, rules).result.ok);
  CHECK(ops_of(*concrete.graph) == "relu slice -> slice");
}

TEST_CASE("a replacement op over constants with a symbolic attribute is placed, not folded",
          "[rewrite][symint]") {
  // relu(c[:, :T]) of a constant c: relu(c) folds, its slice to T cannot (T has no value yet)
  RuleSet rules = rules_from_text(relu_first(""));
  const std::string c = R"({"name": "c", "op": "get_attr", "target": "c"})";
  Model m = model_from_nodes(
      join({c, call("s", "slice", ref("c"), R"("dim": 1, "end": "T")"),
            call("r", "relu", ref("s")), output({"r"})}),
      R"("c": {"dtype": "float32", "shape": [1, 3], "data": [-1, 2, -3]})");
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.diagnostics.empty());
  CHECK(ops_of(*m.graph) == "slice -> slice");
  CHECK(type_to_string(*m.graph->output()->input(0).node->type()) == "float32[1, T]");
}

namespace {

// relu(reshape(x, $s)) -> reshape(relu(x), $s)
const char* const kReluFirstReshape =
    "rule relu_first_reshape {\n"
    "  pattern(x) { return relu(reshape(x, shape=$s)) }\n"
    "  replacement { return reshape(relu(x), $s) }\n"
    "}\n";

}  // namespace

TEST_CASE("a $ variable carries symbolic sizes from the pattern to the replacement",
          "[rewrite][symint]") {
  RuleSet rules = rules_from_text(kReluFirstReshape);
  Model m = model_from_nodes(join({input("x", R"(["N", 24])"),
                                   call("s", "reshape", ref("x"), R"("shape": ["N", -1, 4])"),
                                   call("r", "relu", ref("s")), output({"r"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(ops_of(*m.graph) == "relu reshape -> reshape");
  const Node* out = m.graph->output()->input(0).node;
  CHECK(format_node_kwargs(*out) == "{shape: [N, -1, 4]}");
  CHECK(type_to_string(*out->type()) == "float32[N, 6, 4]");
}

TEST_CASE("a reshape of a constant to symbolic sizes is placed, not folded", "[rewrite][symint]") {
  RuleSet rules = rules_from_text(kReluFirstReshape);
  const std::string c = R"({"name": "c", "op": "get_attr", "target": "c"})";
  Model m = model_from_nodes(
      join({c, call("s", "reshape", ref("c"), R"("shape": ["T", -1])"),
            call("r", "relu", ref("s")), output({"r"})}),
      R"("c": {"dtype": "float32", "shape": [1, 4], "data": [-1, 2, -3, 4]})");
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.diagnostics.empty());
  CHECK(ops_of(*m.graph) == "reshape -> reshape");
  CHECK(type_to_string(*m.graph->output()->input(0).node->type()) == "float32[T, ?]");
}
