// The prover's strategy (see rule_prover.h): for each choice of alternatives the sides are
// compared over the reals, then in float32 (rule_equality.h), all within the rule's time, and
// the answers give the verdict. A counterexample over the reals that needs an uninterpreted
// function proves nothing, unless the functions are ones float32 has exactly (sqrt, the
// rounded divisions): then the float32 query decides what it can.
#include "ruletest/rule_prover.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>

#include "ruletest/rule_equality.h"

namespace graft::ruletest {
namespace {

/// Whether every function left uninterpreted over the reals is exact in the float32 query.
bool exact_in_float32(const std::set<std::string>& functions) {
  static const std::set<std::string> exact = {"sqrt", "div_trunc", "div_floor"};
  return std::all_of(functions.begin(), functions.end(),
                     [](const std::string& f) { return exact.count(f) > 0; });
}

/// The float32 query after a proof over the reals.
ProofResult in_float32_after_reals(const Equality& floats, const std::string& budget) {
  if (floats.equal == true) return {ProofVerdict::kProved, ""};
  if (floats.equal == false && floats.counterexample_special && floats.functions.empty()) {
    return {ProofVerdict::kRefuted, "in float32, " + floats.counterexample};
  }
  if (floats.timed_out) {
    return {ProofVerdict::kProvedOverReals, "the float32 proof timed out after " + budget, true};
  }
  return {ProofVerdict::kProvedOverReals, floats.equal == false
                                              ? "float32 rounding differs, e.g. " +
                                                    floats.counterexample
                                              : "the solver could not decide in float32"};
}

/// The proof for one choice of alternatives, until `deadline`; `budget` is the rule's time.
ProofResult prove_choice(const Rule& rule, const std::vector<size_t>& choice, Deadline deadline,
                         const std::string& budget) {
  Equality reals = check_equality(rule, false, choice, deadline);
  if (reals.timed_out) return {ProofVerdict::kOutside, "the proof timed out after " + budget, true};
  if (reals.equal == true) {
    return in_float32_after_reals(check_equality(rule, true, choice, deadline), budget);
  }
  if (reals.equal == false && reals.functions.empty()) {
    return {ProofVerdict::kRefuted, "over the reals, " + reals.counterexample};
  }
  // Not decided over the reals: a difference that needs exp or erf to be some other function
  // proves nothing, and neither does the solver giving up.
  const std::string why =
      reals.equal == false ? fmt::format("not proved over the reals with {} left uninterpreted",
                                         fmt::join(reals.functions, ", "))
                           : "the solver could not decide over the reals";
  if (!exact_in_float32(reals.functions)) return {ProofVerdict::kOutside, why};
  // sqrt(x * x) → abs(x) needs sqrt over the reals, and is wrong in float32 at 1e20 (inf).
  // Asked for a counterexample with an inf or NaN; after a proof over the reals such a one only
  // counts when the solver finds it first, as an overflow in a reassociation is rounding too.
  Equality floats = check_equality(rule, true, choice, deadline, /*prefer_special=*/true);
  if (floats.equal == false && floats.counterexample_special && floats.functions.empty()) {
    return {ProofVerdict::kRefuted, "in float32, " + floats.counterexample};
  }
  if (floats.timed_out) {
    return {ProofVerdict::kOutside, why + "; the float32 proof timed out after " + budget, true};
  }
  if (floats.equal == true) return {ProofVerdict::kOutside, why + "; equal in float32"};
  return {ProofVerdict::kOutside,
          why + (floats.equal == false ? "; float32 rounding differs, e.g. " + floats.counterexample
                                       : "; the solver could not decide in float32")};
}

constexpr size_t kMaxChoices = 64;  // combinations of alternatives the prover tries

}  // namespace

ProofResult prove_rule(const Rule& rule, const ProveOptions& options) {
  const Deadline deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(options.timeout_seconds));
  const std::string budget = fmt::format("{:g} s", options.timeout_seconds);
  try {
    // Every combination of alternatives must hold; the weakest result is the rule's.
    size_t combinations = 1;
    for (const PatNode& node : rule.nodes) {
      combinations *= std::max<size_t>(node.alts.size(), 1);
      if (combinations > kMaxChoices) return {ProofVerdict::kOutside, "too many alternatives"};
    }
    ProofResult weakest{ProofVerdict::kProved, ""};
    for (size_t k = 0; k < combinations; ++k) {
      std::vector<size_t> choice(rule.nodes.size());
      for (size_t i = 0, rest = k; i < rule.nodes.size(); ++i) {
        choice[i] = rest % std::max<size_t>(rule.nodes[i].alts.size(), 1);
        rest /= std::max<size_t>(rule.nodes[i].alts.size(), 1);
      }
      ProofResult r = prove_choice(rule, choice, deadline, budget);
      if (r.verdict == ProofVerdict::kRefuted || r.verdict == ProofVerdict::kOutside) return r;
      if (r.verdict == ProofVerdict::kProvedOverReals && !weakest.timed_out) weakest = r;
    }
    return weakest;
  } catch (const Outside& o) {
    return {ProofVerdict::kOutside, o.reason};
  } catch (const z3::exception& e) {
    return {ProofVerdict::kOutside, std::string("the solver failed: ") + e.msg()};
  }
}

const char* proof_verdict_name(ProofVerdict verdict) {
  switch (verdict) {
    case ProofVerdict::kProved: return "PROVED";
    case ProofVerdict::kProvedOverReals: return "PROVED over the reals";
    case ProofVerdict::kRefuted: return "REFUTED";
    case ProofVerdict::kOutside: return "TESTED";
  }
  return "TESTED";
}

}  // namespace graft::ruletest
