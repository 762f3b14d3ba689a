// `rewrite verify FILE.rules… [--filter SUBSTR] [-v] [--seed S] [--graphs N] [--trials T]
// [--prove-timeout SECONDS] [--rtol R] [--atol A]`: checks every rule of each named file (not
// of its imports) without hand-written tests, on graphs synthesised from its pattern, and
// reports like a test runner: PASS (PROVED when the prover proves it too), FAIL with a
// counterexample (REFUTED when the prover found it), or SKIP with the reason no graph could be
// checked, then "N verified (P proved), N failed, N skipped". The prover has --prove-timeout
// seconds per rule and does not run once the tests failed. Exits 1 when a rule fails, a rule
// is skipped (unless --allow-skip) or a file does not check.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/support/terminal_text.h"
#include "ruletest/rule_verifier.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {
namespace {

struct VerifyFlags {
  std::vector<std::string> paths;
  std::string filter;
  bool verbose = false;
  bool allow_skip = false;
  ruletest::VerifyOptions options;
  ruletest::ProveOptions prove;
};

struct Counts {
  int verified = 0;
  int proved = 0;  // of the verified, proved over the reals and in float32
  int failed = 0;
  int skipped = 0;
};

/// Loads `path` (with its imports) and verifies its own rules; false if the file does not check.
bool verify_file(const std::string& path, const VerifyFlags& flags, Counts& counts) {
  SourceManager sources;
  DiagnosticEngine diags(&sources);
  dsl::LoadOptions load;
  load.paths = flags.options.paths;
  std::optional<dsl::RuleFileSet> set = dsl::load_rule_files({path}, sources, diags, load);
  if (!set) {
    diags.render(std::cerr);
    fmt::print(stderr, "{}: {} error{} found; no rule verified\n", escape_for_terminal(path),
               diags.error_count(),
               diags.error_count() == 1 ? "" : "s");
    return false;
  }
  // The lowered rules, for the prover (a file that checks lowers).
  DiagnosticEngine lower_diags(&sources);
  std::optional<RuleSet> lowered = dsl::lower(*set, sources, lower_diags);
  for (const auto& [rule, file] : ruletest::rules_in_files(*set, sources, {path})) {
    if (!flags.filter.empty() && rule->name.find(flags.filter) == std::string::npos) continue;
    ruletest::VerifyOutcome outcome = ruletest::verify_rule(*rule, file, flags.options);
    if (int index = lowered ? lowered->find_rule(rule->name) : -1; index >= 0) {
      ruletest::prove_outcome(outcome, lowered->rules[static_cast<size_t>(index)], flags.prove);
      if (outcome.verdict == ruletest::Verdict::kPass &&
          outcome.proof->verdict == ruletest::ProofVerdict::kProved) {
        ++counts.proved;
      }
    }
    std::cout << escape_lines_for_terminal(ruletest::format_verify_outcome(outcome, flags.verbose))
              << std::flush;
    switch (outcome.verdict) {
      case ruletest::Verdict::kPass: ++counts.verified; break;
      case ruletest::Verdict::kFail: ++counts.failed; break;
      case ruletest::Verdict::kSkip: ++counts.skipped; break;
    }
  }
  return true;
}

int run_verify(const VerifyFlags& flags) {
  Counts counts;
  bool all_checked = true;
  for (const std::string& path : flags.paths) {
    all_checked = verify_file(path, flags, counts) && all_checked;
  }
  std::cout << counts.verified << " verified"
            << (counts.proved > 0 ? " (" + std::to_string(counts.proved) + " proved)" : "") << ", "
            << counts.failed << " failed, " << counts.skipped << " skipped\n";
  // A skipped rule was not checked at all: it must not pass for a verified one unnoticed.
  if (counts.skipped > 0 && !flags.allow_skip) {
    std::cerr << "rewrite: error: " << counts.skipped << " rule" << (counts.skipped == 1 ? "" : "s")
              << " could not be checked (SKIP above); pass --allow-skip to accept that\n";
    return kExitInputRejected;
  }
  return counts.failed == 0 && all_checked ? kExitOk : kExitInputRejected;
}

}  // namespace

Handler setup_verify(CLI::App& sub) {
  auto flags = std::make_shared<VerifyFlags>();
  sub.add_option("files", flags->paths, ".rules files whose rules to verify")->required();
  sub.add_option("--filter", flags->filter, "verify only the rules whose name contains SUBSTR")
      ->option_text("SUBSTR");
  sub.add_flag("-v,--verbose", flags->verbose,
               "say why each graph that was not checked was not (not instantiated, not matched)");
  sub.add_flag("--allow-skip", flags->allow_skip,
               "exit 0 although some rules could not be checked (skipped)");
  sub.add_option("--seed", flags->options.seed, "base seed of params and inputs (default 0)");
  sub.add_option("--graphs", flags->options.graphs, "graphs to synthesise per rule (default 8)")
      ->check(CLI::Range(1, 32));
  sub.add_option("--trials", flags->options.trials, "random inputs per graph, in [-1, 1), [-8, 8), [-64, 64) in turn (default 3), before the two trials of special values")
      ->check(CLI::Range(1, 100));
  sub.add_option("--prove-timeout", flags->prove.timeout_seconds,
                 "the prover's time per rule, after which the rule is tested only (default 10)")
      ->option_text("SECONDS")
      ->check(CLI::Range(0.001, 86400.0));
  sub.add_option("--rtol", flags->options.rtol, "relative tolerance (default 1e-4)");
  sub.add_option("--atol", flags->options.atol, "absolute tolerance (default 1e-5)");
  add_allow_path_option(sub, flags->options.paths);
  return [flags]() { return run_verify(*flags); };
}

}  // namespace graft::cli
