// RuleSet queries; the rule IR itself is plain data (see pattern.h).
#include "engine/match/pattern.h"

namespace graft {

int RuleSet::find_rule(const std::string& name) const {
  for (size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace graft
