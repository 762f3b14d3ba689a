// A replacement must keep the type of the value it replaces: the driver reports a rule that
// changes a shape or a dtype at the rule's `return`, naming the node it matched, and leaves the
// graph as it was (without the check the verifier blamed the value's users).
#include <catch2/catch.hpp>

#include "engine/io/graph_printer.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

/// x (f32[1, 8, 4, 4], or `dtype`) -> relu "r" -> neg "n" -> output.
Model relu_model(const std::string& dtype = "float32") {
  return model_from_nodes(R"(
    {"name": "x", "op": "placeholder", "target": "x",
     "meta": {"shape": [1, 8, 4, 4], "dtype": ")" + dtype + R"("}},
    {"name": "r", "op": "call_function", "target": "relu", "args": [{"node": "x"}]},
    {"name": "n", "op": "call_function", "target": "neg", "args": [{"node": "r"}]},
    {"name": "output", "op": "output", "target": "output", "args": [[{"node": "n"}]]})");
}

}  // namespace

TEST_CASE("a replacement that changes a shape is an error at the rule's return, not applied",
          "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(rule halve {
  pattern(x) { return relu(x) }
  replacement {
    return max_pool2d(x, [2, 2])
  }
}
)");
  Model m = relu_model();
  std::string before = format_graph_table(*m.graph);
  Rewritten r = rewrite(*m.graph, rules);
  CHECK_FALSE(r.result.ok);
  CHECK(r.diagnostics ==
        "test.rules:4:12: error: rule 'halve' changes the type of 'r' from float32[1, 8, 4, 4] "
        "to float32[1, 8, 2, 2] (a replacement must keep the type of the value it replaces)\n");
  CHECK(r.result.applied.empty());
  CHECK(format_graph_table(*m.graph) == before);
}

TEST_CASE("a replacement that changes a dtype is an error at the returned name",
          "[rewrite][driver]") {
  // sigmoid of int64 is float32; the error points at `y` in `return y`.
  RuleSet rules = rules_from_text(R"(rule to_float {
  pattern(x) { return relu(x) }
  replacement {
    y = sigmoid(x)
    return y
  }
}
)");
  Model m = relu_model("int64");
  Rewritten r = rewrite(*m.graph, rules);
  CHECK_FALSE(r.result.ok);
  CHECK(r.diagnostics ==
        "test.rules:5:12: error: rule 'to_float' changes the type of 'r' from int64[1, 8, 4, 4] "
        "to float32[1, 8, 4, 4] (a replacement must keep the type of the value it replaces)\n");
  CHECK(ops_of(*m.graph) == "relu neg -> neg");
}

TEST_CASE("a replacement of the same type is applied", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(rule swap {
  pattern(x) { return relu(x) }
  replacement { return clamp(x, min=0) }
}
)");
  Model m = relu_model();
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(ops_of(*m.graph) == "clamp neg -> neg");
}

TEST_CASE("a replacement op that rejects its inputs is an error at its call", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(rule widen {
  pattern(x) { return relu(x) }
  replacement { return max_pool2d(x, [2, 2], stride=[4294967296, 1]) }
}
)");
  Model m = relu_model();
  Rewritten r = rewrite(*m.graph, rules);
  CHECK_FALSE(r.result.ok);
  CHECK(r.diagnostics ==
        "test.rules:3:24: error: rule 'widen' applied at 'r': max_pool2d rejects its inputs: "
        "stride=[4294967296, 1] is out of range (torch's pooling takes 32-bit sizes, up to "
        "2147483647)\n");
  CHECK(ops_of(*m.graph) == "relu neg -> neg");
}

TEST_CASE("the driver's errors about a rule show the rule's line with a caret when its text is kept",
          "[rewrite][driver]") {
  Model m = relu_model();
  SECTION("a type change, at the returned value") {
    SourcedRules rules = sourced_rules_from_text(R"(rule halve {
  pattern(x) { return relu(x) }
  replacement {
    return max_pool2d(x, [2, 2])
  }
}
)");
    Rewritten r = rewrite(*m.graph, rules.rules, rules.sources.get());
    CHECK_FALSE(r.result.ok);
    CHECK(r.diagnostics ==
          "test.rules:4:12: error: rule 'halve' changes the type of 'r' from float32[1, 8, 4, 4] "
          "to float32[1, 8, 2, 2] (a replacement must keep the type of the value it replaces)\n"
          " 4 |     return max_pool2d(x, [2, 2])\n"
          "   |            ^~~~~~~~~~~~~~~~~~~~~\n");
  }
  SECTION("an op that rejects its inputs, at its call") {
    SourcedRules rules = sourced_rules_from_text(R"(rule widen {
  pattern(x) { return relu(x) }
  replacement { return max_pool2d(x, [2, 2], stride=[4294967296, 1]) }
}
)");
    Rewritten r = rewrite(*m.graph, rules.rules, rules.sources.get());
    CHECK_FALSE(r.result.ok);
    CHECK_THAT(r.diagnostics,
               Catch::StartsWith("test.rules:3:24: error: rule 'widen' applied at 'r': max_pool2d "
                                 "rejects its inputs: ") &&
                   Catch::EndsWith(
                       " 3 |   replacement { return max_pool2d(x, [2, 2], stride=[4294967296, 1]) }\n"
                       "   |                        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"));
  }
}
