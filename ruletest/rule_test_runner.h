// Running the `test` blocks of checked rule files (docs/testing-rules.md): build the test
// graph, apply the test's plan with the rewrite driver, check every expectation (op counts,
// expected graphs, numerical equivalence on the runtime) and report like a test runner.
// `rewrite test` and graft::testing::RuleTester are built on this.
//
// This library sits above both dsl and runtime (it needs the language and the kernels), as
// tools/ does; neither of those layers includes it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dsl/rule_file_set.h"
#include "dsl/test_graph.h"
#include "engine/ir/graph.h"
#include "engine/support/source_manager.h"
#include "runtime/equivalence.h"

namespace graft::ruletest {

/// The tolerances when a test states none: no `expect equivalent(...)` at all, or an option
/// left out of it.
inline constexpr double kDefaultRtol = 1e-4;
inline constexpr double kDefaultAtol = 1e-5;
inline constexpr int kDefaultTrials = 1;

/// One expectation that did not hold.
struct Failure {
  std::string location;      // "fuse.rules:21"
  std::string expectation;   // as written: "count(conv2d) == 2", "graph { … }", "equivalent()"
  std::string detail;        // what was expected and what was found; may be several lines
  bool shows_graph = false;  // `detail` already prints the rewritten graph
  /// False when the test could not get as far as its expectations: `expectation` then says
  /// what failed ("the test graph cannot be built", "the rewrite failed").
  bool is_expectation = true;
};

struct TestOutcome {
  std::string name;
  std::string location;  // "fuse.rules:31", where the test is declared
  bool passed = false;
  std::vector<Failure> failures;
  std::vector<std::string> notes;    // e.g. why the implicit numeric check was skipped
  std::unique_ptr<Graph> before;     // the test graph (null if it could not be built)
  std::unique_ptr<Graph> after;      // after the rewrite (null if the rewrite failed)
  std::vector<std::string> applied;  // "rule at node", in order
};

struct RunOptions {
  uint64_t seed = 0;  // the base seed; each test derives its own (dsl::rule_test_seed)
};

/// Runs `test` of `set`. Never fails as a whole: problems building the graph or applying the
/// rules are failures of the test, with their diagnostics in the failure's detail.
TestOutcome run_rule_test(const dsl::RuleFileSet& set, const dsl::CheckedTest& test,
                          const SourceManager& sources, const RunOptions& options = {});

/// The tests declared in the files named `paths` (not in the files they import), in order.
std::vector<const dsl::CheckedTest*> tests_in_files(const dsl::RuleFileSet& set,
                                                    const SourceManager& sources,
                                                    const std::vector<std::string>& paths);

/// `PASS file.rules:LINE name` or `FAIL …` followed by every failure (expectation, expected vs
/// actual, graph diff) and the graphs before and after; with `verbose`, a passing test's
/// graphs too.
std::string format_outcome(const TestOutcome& outcome, bool verbose);

// ** pieces, shared with RuleTester **

/// Live call_function nodes of op `op` (registry name).
int count_ops(const Graph& graph, std::string_view op);

/// Applies `plan` of `set` to `graph` with constant folding on the reference kernels and the
/// verifier after every phase. Returns false after reporting to `diags`; `applied` receives
/// "rule at node" for each rewrite.
[[nodiscard]] bool apply_plan(Graph& graph, const dsl::RuleFileSet& set,
                              const std::vector<dsl::CheckedPhase>& plan,
                              const SourceManager& sources, DiagnosticEngine& diags,
                              std::vector<std::string>* applied = nullptr);

}  // namespace graft::ruletest
