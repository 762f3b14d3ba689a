#include "tests/ruletest/ruletest_testing.h"

#include <catch2/catch.hpp>

#include "engine/support/diagnostics.h"
#include "tests/dsl/rules_testing.h"

namespace graft::testing {
namespace {

dsl::TestGraph build(const std::string& graph_text, const std::string& expected_text,
                     uint64_t seed) {
  std::string text = "test t {\n" + graph_text + "\n" +
                     (expected_text.empty() ? "" : "expect " + expected_text + "\n") + "}\n";
  LoadedRules loaded = load_rules(text);
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set);
  REQUIRE(loaded.set->tests().size() == 1);
  const dsl::ast::TestDecl& test = *loaded.set->tests()[0].decl;
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<dsl::TestGraph> built;
  if (expected_text.empty()) {
    built = dsl::build_test_graph(test, seed, diags);
  } else {
    const auto* expect = dsl::ast::dyn_cast<dsl::ast::ExpectClause>(test.clauses.back());
    REQUIRE(expect != nullptr);
    const auto* block = dsl::ast::dyn_cast<dsl::ast::GraphBlock>(expect->items[0]);
    REQUIRE(block != nullptr);
    built = dsl::build_expected_graph(test, *block, seed, diags);
  }
  INFO(diags.render());
  REQUIRE(built);
  return std::move(*built);
}

}  // namespace

dsl::TestGraph graph_of(const std::string& graph_text, uint64_t seed) {
  return build(graph_text, "", seed);
}

dsl::TestGraph expected_graph_of(const std::string& graph_text, const std::string& expected_text) {
  return build(graph_text, expected_text, 0);
}

}  // namespace graft::testing
