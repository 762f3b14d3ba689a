// See rule_selection.h.
#include "tools/rewrite/rule_selection.h"

#include <algorithm>

#include "engine/support/edit_distance.h"

namespace graft::cli {

bool select_rules(RuleSet& rules, const std::vector<std::string>& only,
                  const std::vector<std::string>& disable, std::string* error) {
  std::vector<std::string> names;
  for (const Rule& r : rules.rules) names.push_back(r.name);
  std::vector<char> keep(rules.rules.size(), only.empty() ? 1 : 0);
  auto mark = [&](const std::string& name, char value, const char* flag) {
    int index = rules.find_rule(name);
    if (index < 0) {
      *error = std::string(flag) + ": unknown rule '" + name + "'" + did_you_mean(name, names);
      return false;
    }
    keep[static_cast<size_t>(index)] = value;
    return true;
  };
  for (const std::string& name : only) {
    if (!mark(name, 1, "--only")) return false;
  }
  for (const std::string& name : disable) {
    if (!mark(name, 0, "--disable")) return false;
  }
  for (Phase& phase : rules.phases) {
    std::erase_if(phase.rules, [&](uint32_t r) { return keep[r] == 0; });
  }
  return true;
}

}  // namespace graft::cli
