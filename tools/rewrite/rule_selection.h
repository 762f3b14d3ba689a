// `--only RULE` and `--disable RULE` of the main job: which rules of a rule set run, by
// removing the others from every phase before the rules are compiled.
#pragma once

#include <string>
#include <vector>

#include "engine/match/pattern.h"

namespace graft::cli {

/// Keeps in every phase of `rules` only the rules `only` names (all of them when it is empty)
/// and none that `disable` names. False with `*error` set ("unknown rule 'x' (did you mean
/// 'y'?)") when a name is not a rule of the set.
bool select_rules(RuleSet& rules, const std::vector<std::string>& only,
                  const std::vector<std::string>& disable, std::string* error);

}  // namespace graft::cli
