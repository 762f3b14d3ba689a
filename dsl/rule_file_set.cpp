// RuleFileSet queries and its one-screen summary.
#include "dsl/rule_file_set.h"

namespace graft::dsl {
namespace {

std::string count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

const CheckedRule* RuleFileSet::find_rule(std::string_view name) const {
  for (const CheckedRule& r : rules_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string RuleFileSet::summary() const {
  std::string out = count(rules_.size(), "rule") + ", " + count(phases_.size(), "phase") + ", " +
                    count(tests_.size(), "test") + "\n";
  for (const CheckedPhase& p : phases_) {
    out += "  phase " + p.name + " (" +
           (p.mode == ast::PhaseMode::kOnce ? std::string("once")
                                            : "fixpoint, max " + std::to_string(p.max_iterations)) +
           "):";
    for (size_t i = 0; i < p.rules.size(); ++i)
      out += (i == 0 ? " " : ", ") + rules_[p.rules[i]].name;
    out += "\n";
  }
  for (const CheckedTest& t : tests_) out += "  test " + t.name + "\n";
  return out;
}

}  // namespace graft::dsl
