// Proofs for the algebraic fragment of the rule language: a rule whose pattern and replacement
// are built from elementwise ops (the registry's formulas), identities and scalar literals is
// checked with Z3 for every input, first over the reals, then in float32 with its zeros,
// infinities and NaN. Elementwise ops with broadcasting compute each output element from one
// element of each input, so one variable per tensor stands for every element. Each rule gets a
// time budget; a rule the solver does not decide within it is tested only.
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
  ProofVerdict verdict = ProofVerdict::kOutside;
  /// kRefuted: the counterexample (`x = inf: pattern nan, replacement 0`); kProvedOverReals:
  /// where float32 differs; kOutside: why the rule is outside the fragment.
  std::string detail;
  /// The solver ran out of the rule's time: kOutside when the proof over the reals did, or
  /// kProvedOverReals when the one in float32 did.
  bool timed_out = false;
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
