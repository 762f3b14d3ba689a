#include "tests/engine/rewrite/rewrite_testing.h"

#include <catch2/catch.hpp>

#include "dsl/lower.h"
#include "eval/constant_folder.h"
#include "tests/dsl/rules_testing.h"

namespace graft::testing {

Model model_from_nodes(const std::string& nodes, const std::string& tensors) {
  std::string text = R"({"format": "graft.model", "version": 1, )" +
                     (tensors.empty() ? std::string() : R"("tensors": {)" + tensors + "}, ") +
                     R"("nodes": [)" + nodes + "]}";
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(text, "test.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  return std::move(*model);
}

RuleSet rules_from_text(const std::string& text) { return sourced_rules_from_text(text).rules; }

SourcedRules sourced_rules_from_text(const std::string& text) {
  LoadedRules loaded = load_rules(text);
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set);
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<RuleSet> rules = dsl::lower(*loaded.set, *loaded.sources, diags);
  INFO(diags.render());
  REQUIRE(rules);
  return {std::move(loaded.sources), std::move(*rules)};
}

Rewritten rewrite(Graph& graph, const RuleSet& rules, const SourceManager* sources) {
  CompiledRules compiled(rules);
  RewriteOptions options;
  options.fold = eval::reference_constant_folder();
  options.verify_each_phase = true;
  DiagnosticEngine diags(sources);
  Rewritten out;
  out.result = rewrite_graph(graph, compiled, options, diags);
  out.diagnostics = diags.render();
  return out;
}

std::string ops_of(const Graph& graph) {
  std::string out;
  for (const Node* n : graph.nodes()) {
    if (n->is(NodeKind::kCallFunction)) out += (out.empty() ? "" : " ") + n->target();
  }
  out += " ->";
  for (const Input& in : graph.output()->inputs()) {
    out += " " + (in.node->is(NodeKind::kCallFunction) ? in.node->target() : in.node->name());
  }
  return out;
}

}  // namespace graft::testing
