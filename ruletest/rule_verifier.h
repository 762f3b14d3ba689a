// Verification of rules without hand-written tests (`rewrite verify`): for each rule, graphs
// synthesised from its pattern (rule_synthesis.h) are built as test graphs, rewritten by the
// rule alone with the real driver, and run before and after on the runtime on random inputs.
// A rule passes when it rewrote at least one graph and every rewritten graph kept its numbers;
// it fails with a counterexample (the graph, its seed, the element that differs most, shrunk
// to the smallest failing shapes and simplified inputs, shown with both outputs); it is
// skipped, with the reason, when no graph could be instantiated, matched and run. Rules of the
// algebraic fragment are also proved or refuted (rule_prover.h; prove_outcome), unless their
// tests failed already.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dsl/rule_file_set.h"
#include "engine/support/confined_path.h"
#include "engine/support/source_manager.h"
#include "ruletest/rule_prover.h"

namespace graft::ruletest {

struct VerifyOptions {
  uint64_t seed = 0;   // base seed of params and inputs; each graph derives its own
  int graphs = 8;      // graphs to synthesise per rule (more when it has many alternatives)
  int trials = 3;      // random inputs per graph, in [-1, 1), [-8, 8) and [-64, 64) in turn;
                       // then two trials of special values (zeros, thresholds, ±inf, NaN)
  double rtol = 1e-4;  // numpy.allclose tolerances, as `expect equivalent`
  double atol = 1e-5;
  PathPolicy paths;    // where the rule file's imports may lie besides its folder (--allow-path)
};

enum class Verdict { kPass, kFail, kSkip };

struct VerifyOutcome {
  std::string rule;
  std::string location;  // "fuse.rules:12"
  Verdict verdict = Verdict::kSkip;
  int checked = 0;  // graphs the rule rewrote and that were run and compared
  /// kFail: the counterexample or the rewrite error; kSkip: why nothing could be checked.
  std::string detail;
  /// Per graph that was not checked: why ("graph 3: the rule does not match: …"), for -v.
  std::vector<std::string> notes;
  /// What the prover found (ruletest/rule_prover.h), once attach_proof() has run.
  std::optional<ProofResult> proof;
  /// The tests failed, so the prover was not run (prove_outcome).
  bool proof_skipped = false;
};

/// Combines `outcome` with the prover's `proof` of the same rule: a refuted rule fails (with
/// the counterexample) unless a graph failed already; a proved rule passes although no graph
/// could be run. The verdict of a rule outside the fragment stays the tests'.
void attach_proof(VerifyOutcome& outcome, ProofResult proof);

/// Runs the prover on `rule` (the lowered form of `outcome`'s rule) and attaches its result,
/// unless the tests failed: their counterexample stands, and a proof could only take time.
void prove_outcome(VerifyOutcome& outcome, const Rule& rule, const ProveOptions& options);

/// Verifies `rule` of `set`, which was loaded from `path` (the file the synthesised test
/// imports). Never fails as a whole: every problem is the rule's outcome.
VerifyOutcome verify_rule(const dsl::CheckedRule& rule, const std::string& path,
                          const VerifyOptions& options);

/// The rules declared in the files named `paths` (not in the files they import), in order,
/// each with the path of its file.
std::vector<std::pair<const dsl::CheckedRule*, std::string>> rules_in_files(
    const dsl::RuleFileSet& set, const SourceManager& sources,
    const std::vector<std::string>& paths);

/// `PASS rule (N graphs)`, `FAIL rule: …` with the counterexample, or `SKIP rule: …`; with
/// `verbose`, the notes too.
std::string format_verify_outcome(const VerifyOutcome& outcome, bool verbose);

}  // namespace graft::ruletest
