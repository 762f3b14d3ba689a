// `--explain RULE@NODE` (explain_match, see rewriter.h): labels a const graph, runs the rule's
// search at the node with a recorder, and for a match asks why_declined whether the driver
// would apply it (for a pattern of several parts, the search passes over the combinations it
// would decline, as the driver's does). It only reads the graph.
#include "engine/match/matcher.h"
#include "engine/rewrite/match_check.h"
#include "engine/rewrite/rewriter.h"
#include "engine/support/edit_distance.h"

namespace graft {

std::optional<Explanation> explain_match(const Graph& graph, const CompiledRules& rules,
                                         const std::string& rule, const std::string& node,
                                         DiagnosticEngine& diags) {
  int r = rules.rules().find_rule(rule);
  if (r < 0) {
    std::vector<std::string> names;
    for (const Rule& x : rules.rules().rules) names.push_back(x.name);
    diags.error({}, "--explain: no rule named '" + rule + "'" + did_you_mean(rule, names));
    return std::nullopt;
  }
  Node* n = graph.find(node);
  if (n == nullptr) {
    std::vector<std::string> names;
    for (const Node* g : graph.nodes()) names.push_back(g->name());
    diags.error({}, "--explain: no node named '" + node + "' in the model" +
                        did_you_mean(node, names));
    return std::nullopt;
  }
  Matcher matcher(rules, graph);
  matcher.label_all();
  Explanation why;
  const Rule& x = rules.rules().rules[static_cast<size_t>(r)];
  // The combination of a pattern's parts the driver would take: the first it would apply.
  PartSearch parts;
  parts.declined = [&x](const Match& match) { return why_declined(x, match); };
  std::optional<Match> m = matcher.match_at(static_cast<uint32_t>(r), n, &why, &parts);
  if (m) {
    std::string declined = why_declined(x, *m);
    if (!declined.empty()) {
      why.matched = false;
      why.reason = "the pattern matches, but the driver declines it: " + declined;
    } else {
      why.reason = "matches: " + x.name + " (" + x.loc + ") rewrites at '" + node + "'";
    }
  }
  return why;
}

}  // namespace graft
