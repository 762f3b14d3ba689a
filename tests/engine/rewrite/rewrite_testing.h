// Helpers for matcher and driver tests: rules from text, graphs from compact model JSON, the
// rewrite run with the verifier after every phase, and a one-line summary of a graph's ops.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/io/model_json.h"
#include "engine/match/pattern.h"
#include "engine/rewrite/rewriter.h"
#include "engine/support/source_manager.h"

namespace graft::testing {

// model.json node text, for model_from_nodes.
/// {"node": n}: an operand reading node `n`.
std::string ref(const std::string& n);
/// A float32 placeholder of `shape`.
std::string input(const std::string& name, const std::string& shape = "[2, 3]");
/// A call_function node; `args` and `kwargs` are the JSON texts inside [] and {}.
std::string call(const std::string& name, const std::string& target, const std::string& args,
                 const std::string& kwargs = "");
/// The output node returning `names`.
std::string output(const std::vector<std::string>& names);
/// `parts` separated by ",\n".
std::string join(const std::vector<std::string>& parts);

/// A model from `nodes` (the JSON node objects, comma-separated, output node included) and
/// optional inline `tensors` (the JSON object body).
Model model_from_nodes(const std::string& nodes, const std::string& tensors = "");

/// Rules from `.rules` text, lowered; fails the test on any diagnostic.
RuleSet rules_from_text(const std::string& text);

/// Lowered rules with the SourceManager that holds their text ("test.rules").
struct SourcedRules {
  std::unique_ptr<SourceManager> sources;
  RuleSet rules;
};
SourcedRules sourced_rules_from_text(const std::string& text);

struct Rewritten {
  RewriteResult result;
  std::string diagnostics;
};

/// Rewrites `graph` with `rules` (constant folding on the reference kernels, the verifier after
/// every phase). Diagnostics show source lines when `sources` holds the rules' text.
Rewritten rewrite(Graph& graph, const RuleSet& rules, const SourceManager* sources = nullptr);

/// "x conv2d relu -> relu": the call targets in graph order, then the output's producers.
std::string ops_of(const Graph& graph);

}  // namespace graft::testing
