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

std::string ref(const std::string& n) { return R"({"node": ")" + n + R"("})"; }

std::string input(const std::string& name, const std::string& shape) {
  return R"({"name": ")" + name + R"(", "op": "placeholder", "target": ")" + name +
         R"(", "meta": {"shape": )" + shape + R"(, "dtype": "float32"}})";
}

std::string call(const std::string& name, const std::string& target, const std::string& args,
                 const std::string& kwargs) {
  return R"({"name": ")" + name + R"(", "op": "call_function", "target": ")" + target +
         R"(", "args": [)" + args + "]" + (kwargs.empty() ? "" : R"(, "kwargs": {)" + kwargs + "}") +
         "}";
}

std::string output(const std::vector<std::string>& names) {
  std::string refs;
  for (const auto& n : names) refs += (refs.empty() ? "" : ", ") + ref(n);
  return R"({"name": "output", "op": "output", "target": "output", "args": [[)" + refs + "]]}";
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",\n") + p;
  return out;
}

}  // namespace graft::testing
