// `rewrite test FILE.rules… [--filter SUBSTR] [-v] [--seed S]`: runs the `test` blocks of each
// named file (loaded with its imports, but not running the imported files' tests, which have
// their own run) and reports like a test runner: a PASS/FAIL line per test, the failures with
// expected vs actual and graph diffs, then "N passed, N failed". Exits 1 when a test fails or a
// file does not check (the other files still run).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "dsl/load.h"
#include "engine/support/terminal_text.h"
#include "ruletest/rule_test_runner.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {
namespace {

struct TestFlags {
  std::vector<std::string> paths;
  std::string filter;
  bool verbose = false;
  uint64_t seed = 0;
  dsl::LoadOptions load;
};

/// Loads `path` (with its imports) and runs its own tests; false if the file does not check.
bool run_file(const std::string& path, const TestFlags& flags, int& passed, int& failed) {
  SourceManager sources;
  DiagnosticEngine diags(&sources);
  std::optional<dsl::RuleFileSet> set = dsl::load_rule_files({path}, sources, diags, flags.load);
  if (!set) {
    diags.render(std::cerr);
    fmt::print(stderr, "{}: {} error{} found; no test ran\n", escape_for_terminal(path),
               diags.error_count(),
               diags.error_count() == 1 ? "" : "s");
    return false;
  }
  // Warnings (an unused binding, a test without expectations) are worth seeing, not fatal.
  if (diags.warning_count() > 0) diags.render(std::cerr);
  ruletest::RunOptions options;
  options.seed = flags.seed;
  for (const dsl::CheckedTest* test : ruletest::tests_in_files(*set, sources, {path})) {
    if (!flags.filter.empty() && test->name.find(flags.filter) == std::string::npos) continue;
    ruletest::TestOutcome outcome = ruletest::run_rule_test(*set, *test, sources, options);
    // The report quotes the test's graphs and the rule file's lines.
    std::cout << escape_lines_for_terminal(ruletest::format_outcome(outcome, flags.verbose))
              << std::flush;
    (outcome.passed ? passed : failed) += 1;
  }
  return true;
}

int run_tests(const TestFlags& flags) {
  // Each file is its own rule set, as `rewrite check` of that file sees it: two files may
  // define rules and tests of the same name.
  int passed = 0;
  int failed = 0;
  bool all_checked = true;
  for (const std::string& path : flags.paths) {
    all_checked = run_file(path, flags, passed, failed) && all_checked;
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  if (all_checked && passed + failed == 0) {
    std::cerr << "rewrite: warning: no test "
              << (flags.filter.empty() ? "in the given files"
                                       : "matches '" + escape_for_terminal(flags.filter) + "'")
              << "\n";
  }
  return failed == 0 && all_checked ? kExitOk : kExitInputRejected;
}

}  // namespace

Handler setup_test(CLI::App& sub) {
  auto flags = std::make_shared<TestFlags>();
  sub.add_option("files", flags->paths, ".rules files whose tests to run")->required();
  sub.add_option("--filter", flags->filter, "run only the tests whose name contains SUBSTR")
      ->option_text("SUBSTR");
  sub.add_flag("-v,--verbose", flags->verbose, "print the graphs of passing tests too");
  sub.add_option("--seed", flags->seed,
                 "base seed of random params and inputs (each test derives its own; default 0)");
  add_allow_path_option(sub, flags->load.paths);
  return [flags]() { return run_tests(*flags); };
}

}  // namespace graft::cli
