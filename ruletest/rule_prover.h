// Proofs for the algebraic fragment of the rule language: a rule whose pattern and replacement
// are built from elementwise ops (the registry's formulas), comparisons, selections, identities,
// permutes, views and scalar literals is checked with Z3 for every input, first over the reals,
// then in float32 with its zeros, infinities and NaN (rule_terms.h says how). Other ops are
// uninterpreted functions, so a rule that only moves them around (softmax(x, 3) → softmax(x, -1)
// of a 4-d x) is proved too. An input whose rank a permute or a condition needs is tried at each
// rank up to a bound, which the result then names. Each rule gets a time budget; a rule the
// solver does not decide within it is tested only.
#pragma once

#include <string>

#include "engine/match/pattern.h"

namespace graft::ruletest {

enum class ProofVerdict {
  kProved,          // equal for every input, over the reals and in float32
  kProvedOverReals, // equal over the reals; float32 rounding may differ (reassociation)
  kRefuted,         // a counterexample: inputs where the two sides differ
  kOutside,         // not in the fragment (or the solver could not decide): tested only
};

struct ProofResult {
  ProofResult() = default;
  ProofResult(ProofVerdict v, std::string why, bool out_of_time = false)
      : verdict(v), detail(std::move(why)), timed_out(out_of_time) {}

  ProofVerdict verdict = ProofVerdict::kOutside;
  /// kRefuted: the counterexample (`x = inf: pattern nan, replacement 0`); kProvedOverReals:
  /// where float32 differs; kOutside: why the rule is outside the fragment.
  std::string detail;
  /// The solver ran out of the rule's time: kOutside when the proof over the reals did, or
  /// kProvedOverReals when the one in float32 did.
  bool timed_out = false;
  /// A proof that holds for some ranks only: "for ranks up to 6 of x".
  std::string scope;
};

struct ProveOptions {
  double timeout_seconds = 10;  // the solver's time per rule, for all its queries together
};

/// Proves, refutes or declines `rule` as ProofVerdict says. Never fails: what the prover does
/// not model, or does not decide in time, makes the rule kOutside with the reason.
ProofResult prove_rule(const Rule& rule, const ProveOptions& options = {});

/// "PROVED", "PROVED over the reals", "REFUTED", "TESTED".
const char* proof_verdict_name(ProofVerdict verdict);

}  // namespace graft::ruletest
