// One query of the prover (rule_prover.h): are the two sides of a rule equal for every input,
// over the reals or in float32? Each side becomes a tensor of Z3 terms (rule_terms.h); the
// answer comes with a counterexample, which uninterpreted functions it needed, and whether the
// solver ran out of time. rule_prover.cpp decides from the answers what the rule's verdict is.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/match/pattern.h"

namespace graft::ruletest {

/// Why a rule is outside the fragment; thrown by check_equality, caught by prove_rule.
struct Outside {
  std::string reason;
};

/// What a query assumes beyond the rule: the rank of some inputs, and which list of its `in`
/// set a list variable holds (`$p in {[1, 0], [0, 2, 1]}`). The prover tries each.
struct ProofAssumptions {
  std::map<std::string, int> ranks;
  std::map<uint32_t, size_t> lists;
  /// Only whether the shapes agree and the replacement can run, on tensors: for a rule of
  /// elementwise ops, whose elements are checked one for all.
  bool shapes_only = false;
};

/// The query needs a list variable's value: thrown with the size of its `in` set.
struct NeedList {
  uint32_t var = 0;
  size_t count = 0;
};

struct Equality {
  std::optional<bool> equal;  // nullopt: the solver did not decide
  bool timed_out = false;     // it did not decide because the deadline passed
  /// equal == false: the inputs and both sides' values (`x = inf: pattern nan, replacement 0`).
  std::string counterexample;
  /// In float32: the counterexample has an infinity or NaN among its inputs or results.
  bool counterexample_special = false;
  /// The functions left uninterpreted ("exp", "sqrt", …): a proof holds for every such
  /// function, a counterexample that needs one proves nothing.
  std::set<std::string> functions;
};

using Deadline = std::chrono::steady_clock::time_point;

/// Whether `c` is `$p in {[…], […]}`: a list variable's set of lists, which the prover tries
/// list by list (NeedList).
bool is_list_set(const Condition& c);
/// The set of lists a condition gives list variable `var`, or nullptr.
const Term* list_set(const Rule& rule, uint32_t var);
/// `v` as an int64 when it is a whole number in range; else Outside.
int64_t whole_number(double v);

/// Whether every op of `rule` (with `choice`) is elementwise: then one element stands for all,
/// and the shapes are a query of their own (ProofAssumptions::shapes_only).
bool elementwise_rule(const Rule& rule, const std::vector<size_t>& choice);

/// Whether the sides of `rule` (with `choice`, the alternative each PatNode takes) are equal,
/// over the reals or in `float32`, asking the solver until `deadline`. With `prefer_special`, a
/// float32 counterexample with only rounding in it is followed by a query for one with an inf
/// or NaN. Throws Outside for what the prover does not model, NeedRank (prover_tensors.h) and
/// NeedList for what it must try case by case.
Equality check_equality(const Rule& rule, bool float32, const std::vector<size_t>& choice,
                        const ProofAssumptions& assume, Deadline deadline,
                        bool prefer_special = false);

}  // namespace graft::ruletest
