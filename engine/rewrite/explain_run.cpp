// `--explain RULE@NODE` over a whole run (explain_in_run, see rewriter.h): the rule is explained
// on the graph each of its phases starts from, not on the input, and the first rewrite whose
// match covered the node is named, so that a node another rule took first (conv+bn+relu before
// conv+relu, conv+add+relu before conv+add) is not reported as this rule's rewrite.
#include <algorithm>

#include "engine/rewrite/rewriter.h"

namespace graft {

std::optional<RunExplanation> explain_in_run(const Graph& graph, const CompiledRules& rules,
                                             RewriteOptions options, const std::string& rule,
                                             const std::string& node, DiagnosticEngine& diags) {
  // The names are checked on the input, with explain_match's messages.
  if (!explain_match(graph, rules, rule, node, diags)) return std::nullopt;
  const auto index = static_cast<uint32_t>(rules.rules().find_rule(rule));
  RunExplanation out;
  const Phase* current = nullptr;
  options.before_phase = [&](const Phase& phase, const Graph& g) {
    current = &phase;
    if (std::find(phase.rules.begin(), phase.rules.end(), index) == phase.rules.end()) return;
    if (out.taken_by || g.find(node) == nullptr) {
      out.phases.push_back({phase.name, false, {}});
      return;
    }
    DiagnosticEngine quiet;
    std::optional<Explanation> why = explain_match(g, rules, rule, node, quiet);
    out.phases.push_back({phase.name, true, why.value_or(Explanation{})});
  };
  options.on_applied = [&](const AppliedRewrite& rewrite, const std::vector<std::string>& matched) {
    if (out.taken_by || std::find(matched.begin(), matched.end(), node) == matched.end()) return;
    out.taken_by = rewrite;
    out.taken_in_phase = current != nullptr ? current->name : std::string();
  };
  options.after_phase = nullptr;
  std::unique_ptr<Graph> copy = graph.clone();
  rewrite_graph(*copy, rules, options, diags);
  return out;
}

std::string format_run_explanation(const std::string& rule, const std::string& node,
                                   const RunExplanation& run) {
  const std::string at = rule + "@" + node;
  std::string out;
  auto took = [&](const AppliedRewrite& r, const std::string& phase) {
    return r.rule + " (phase '" + phase + "') took '" + node + "' first" +
           (r.anchor == node ? "" : ", anchored at '" + r.anchor + "'");
  };
  for (const RunExplanation::AtPhase& p : run.phases) {
    out += at + " in phase '" + p.phase + "': ";
    if (!p.node_present) {
      out += run.taken_by ? "'" + node + "' is gone: " + took(*run.taken_by, run.taken_in_phase)
                          : "'" + node + "' is gone";
    } else {
      out += (p.why.matched ? "" : "no match: ") + p.why.reason;
    }
    out += "\n";
  }
  if (applied_at(run, rule, node)) {
    out += at + ": applied in phase '" + run.taken_in_phase + "'\n";
  } else if (run.taken_by) {
    out += at + ": not applied: " + took(*run.taken_by, run.taken_in_phase) + "\n";
  } else {
    out += at + ": not applied\n";
  }
  return out;
}

}  // namespace graft
