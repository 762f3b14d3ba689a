// The prover's strategy (see rule_prover.h): for each choice of alternatives the sides are
// compared over the reals, then in float32 (rule_equality.h), all within the rule's time, and
// the answers give the verdict. A counterexample over the reals that needs an uninterpreted
// function proves nothing, unless the functions are ones float32 has exactly (sqrt, the
// rounded divisions): then the float32 query decides what it can.
#include "ruletest/rule_prover.h"

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <set>

#include "ruletest/prover_tensors.h"
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

/// The proof for one choice of alternatives and assumptions, until `deadline`; `budget` is the
/// rule's time.
ProofResult prove_choice(const Rule& rule, const std::vector<size_t>& choice,
                         const ProofAssumptions& assume, Deadline deadline,
                         const std::string& budget) {
  Equality reals = check_equality(rule, false, choice, assume, deadline);
  if (reals.timed_out) return {ProofVerdict::kOutside, "the proof timed out after " + budget, true};
  if (reals.equal == true) {
    try {
      return in_float32_after_reals(check_equality(rule, true, choice, assume, deadline), budget);
    } catch (const Outside& o) {
      return {ProofVerdict::kProvedOverReals, "not checked in float32: " + o.reason};
    }
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
  Equality floats =
      check_equality(rule, true, choice, assume, deadline, /*prefer_special=*/true);
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
constexpr int kMaxRank = 6;         // an input of open rank is tried at ranks 0 to this
constexpr size_t kMaxCases = 256;   // ranks and lists tried, over all choices

/// The lengths of the lists in list variable `var`'s `in` set, if a condition gives one.
std::optional<std::vector<int>> list_lengths(const Rule& rule, uint32_t var) {
  const Term* lists = list_set(rule, var);
  if (lists == nullptr) return std::nullopt;
  std::set<int> lengths;
  for (const Term& list : lists->items) lengths.insert(static_cast<int>(list.items.size()));
  return std::vector<int>(lengths.begin(), lengths.end());
}

/// The ranks worth trying for `input`: those a `rank(x) == n` condition or a permute of x by
/// a literal list, or by a list variable with an `in` set, fixes (at any other rank the
/// pattern does not match), else all.
std::vector<int> ranks_to_try(const Rule& rule, const std::string& input, bool* open) {
  uint32_t var = 0;
  while (var < rule.var_names.size() && rule.var_names[var] != input) ++var;
  for (const Condition& c : rule.conditions) {
    if (c.kind == Condition::Kind::kCompare && !c.negated && c.op == CmpOp::kEq &&
        c.lhs.kind == Term::Kind::kRank && c.lhs.value.kind == ValueRef::Kind::kVar &&
        c.lhs.value.index == var && c.rhs.kind == Term::Kind::kNumber) {
      // A rank no tensor has (past the ones tried) matches nothing, whichever it is.
      return {static_cast<int>(std::clamp<int64_t>(whole_number(c.rhs.number), 0, kMaxRank + 1))};
    }
  }
  for (const PatNode& node : rule.nodes) {
    if (node.alts.size() != 1 || node.alts[0].schema->name != "permute") continue;
    const PatAlt& alt = node.alts[0];
    if (alt.operands.empty() || alt.operands[0].kind != PatValue::Kind::kVar ||
        alt.operands[0].index != var) {
      continue;
    }
    for (const AttrCheck& c : alt.attrs) {
      if (c.kind == AttrCheck::Kind::kList) return {static_cast<int>(c.elements.size())};
      if (c.kind == AttrCheck::Kind::kBind) {
        if (std::optional<std::vector<int>> lengths = list_lengths(rule, c.var)) return *lengths;
      }
      if (const auto* l = std::get_if<std::vector<int64_t>>(&c.value);
          l && c.kind == AttrCheck::Kind::kEquals) {
        return {static_cast<int>(l->size())};
      }
    }
  }
  *open = true;
  std::vector<int> all;
  for (int r = 0; r <= kMaxRank; ++r) all.push_back(r);
  return all;
}

/// The weaker of two results that both hold so far.
void weaken(ProofResult& weakest, ProofResult r) {
  if (r.verdict == ProofVerdict::kProvedOverReals && !weakest.timed_out) weakest = std::move(r);
}

/// The proof for one choice of alternatives, trying each rank of an input whose rank the
/// terms need and each list of a list variable's `in` set. `cases` counts the queries' cases
/// and `open_ranks` collects the inputs tried at every rank up to kMaxRank.
ProofResult prove_cases(const Rule& rule, const std::vector<size_t>& choice,
                        const ProofAssumptions& assume, Deadline deadline,
                        const std::string& budget, size_t* cases,
                        std::set<std::string>* open_ranks) {
  if (++*cases > kMaxCases) throw Outside{"too many ranks and lists to try"};
  std::vector<ProofAssumptions> next;
  try {
    // A rule of elementwise ops has its elements checked one for all; its shapes must agree
    // too (`x + y - y → x` is wrong where y broadcasts x to a larger shape). Asked first, as it
    // is quick and the elements' queries may use up the rule's time.
    std::optional<Equality> shapes;
    if (elementwise_rule(rule, choice)) {
      ProofAssumptions shapes_only = assume;
      shapes_only.shapes_only = true;
      shapes = check_equality(rule, false, choice, shapes_only, deadline);
    }
    ProofResult r = prove_choice(rule, choice, assume, deadline, budget);
    const bool proved =
        r.verdict == ProofVerdict::kProved || r.verdict == ProofVerdict::kProvedOverReals;
    if (proved && shapes && shapes->timed_out) {
      return {ProofVerdict::kOutside, "the shapes' proof timed out after " + budget, true};
    }
    if (proved && shapes && shapes->equal != true) {
      return {ProofVerdict::kOutside, "equal element by element, but the shapes may differ"};
    }
    return r;
  } catch (const NeedRank& need) {
    bool open = false;
    for (int r : ranks_to_try(rule, need.input, &open)) {
      ProofAssumptions a = assume;
      a.ranks[need.input] = r;
      next.push_back(std::move(a));
    }
    if (open) open_ranks->insert(need.input);
  } catch (const NeedList& need) {
    for (size_t k = 0; k < need.count; ++k) {
      ProofAssumptions a = assume;
      a.lists[need.var] = k;
      next.push_back(std::move(a));
    }
  }
  ProofResult weakest{ProofVerdict::kProved, ""};
  for (const ProofAssumptions& a : next) {
    ProofResult r = prove_cases(rule, choice, a, deadline, budget, cases, open_ranks);
    if (r.verdict == ProofVerdict::kRefuted || r.verdict == ProofVerdict::kOutside) return r;
    weaken(weakest, std::move(r));
  }
  return weakest;
}

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
    size_t cases = 0;
    std::set<std::string> open_ranks;
    for (size_t k = 0; k < combinations; ++k) {
      std::vector<size_t> choice(rule.nodes.size());
      for (size_t i = 0, rest = k; i < rule.nodes.size(); ++i) {
        choice[i] = rest % std::max<size_t>(rule.nodes[i].alts.size(), 1);
        rest /= std::max<size_t>(rule.nodes[i].alts.size(), 1);
      }
      ProofResult r = prove_cases(rule, choice, {}, deadline, budget, &cases, &open_ranks);
      if (r.verdict == ProofVerdict::kRefuted || r.verdict == ProofVerdict::kOutside) return r;
      weaken(weakest, std::move(r));
    }
    if (!open_ranks.empty()) {
      weakest.scope = fmt::format("for ranks up to {} of {}", kMaxRank, fmt::join(open_ranks, ", "));
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
