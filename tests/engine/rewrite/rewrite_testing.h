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
