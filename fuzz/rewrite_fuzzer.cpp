// fuzz_rewrite: the standard rules (rules/std.rules, loaded once) on random well-formed graphs
// (fuzz/graph_recipe.h turns the input bytes into the graph), with constant folding on the
// reference kernels as `rewrite` runs it.
//
// A valid graph must come out of the standard rules valid and computing the same thing, so
// each of these is a finding (an abort): the graph the recipe built fails the verifier (a
// harness bug); the driver reports an error; the verifier rejects the graph after any phase;
// an output changes type; or, for float32 graphs the runtime can run, an output changes value
// beyond the tolerance the rule tests use (runtime/equivalence.h), on inputs where the original
// graph is well-conditioned: a graph whose own reference outputs move beyond the tolerance
// when rounding is perturbed (fuzz/numeric_oracle.h) may come out of any correct rewrite that
// rounds differently (a hand-written GELU that became `gelu`) computing a different value, or
// a zero of the other sign.
#include <cstdlib>
#include <string>
#include <vector>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/io/graph_printer.h"
#include "engine/ir/verifier.h"
#include "engine/rewrite/rewriter.h"
#include "eval/constant_folder.h"
#include "eval/reference.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/graph_recipe.h"
#include "fuzz/numeric_oracle.h"
#include "runtime/equivalence.h"

namespace {

using graft::DiagnosticEngine;
using graft::fuzz::fail;

const graft::CompiledRules& std_rules() {
  static const graft::RuleSet rules = [] {
    graft::SourceManager sources;
    DiagnosticEngine diags(&sources);
    graft::dsl::LoadOptions options;
    options.read_file = [](const std::string& path, std::string*) -> std::optional<std::string> {
      const auto& files = graft::fuzz::std_rule_files();
      auto it = files.find(path);
      return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    std::optional<graft::dsl::RuleFileSet> set =
        graft::dsl::load_rule_files({"std.rules"}, sources, diags, options);
    std::optional<graft::RuleSet> lowered;
    if (set) lowered = graft::dsl::lower(*set, sources, diags);
    if (!lowered) fail("fuzz harness set-up: rules/std.rules", diags.render());
    return std::move(*lowered);
  }();
  static const graft::CompiledRules compiled(rules);
  return compiled;
}

std::vector<graft::TensorType> output_types(const graft::Graph& g) {
  std::vector<graft::TensorType> types;
  for (const graft::Input& in : g.output()->inputs()) types.push_back(*in.node->type());
  return types;
}

bool is_plain_float32(const graft::Graph& g) {
  for (const graft::Node* n : g.nodes()) {
    if (n->type() && n->type()->dtype != graft::DType::kFloat32) return false;
  }
  return true;
}

/// Whether the original graph amplifies rounding on the inputs where the two graphs differ,
/// or overflows inside a normalisation: then the difference is no evidence of a wrong rewrite.
bool unstable_on(const graft::Graph& original, const graft::runtime::EquivalenceReport& report) {
  if (!report.counterexample) return false;
  const std::vector<graft::eval::Tensor>& inputs = report.counterexample->inputs;
  DiagnosticEngine diags;
  std::optional<std::vector<graft::eval::Tensor>> want =
      graft::eval::run_reference(original, inputs, diags);
  if (!want) return false;
  return graft::fuzz::ill_conditioned(original, inputs, *want) ||
         graft::fuzz::normalizes_overflowing_values(original, inputs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<graft::Graph> graph = graft::fuzz::graph_from_recipe(data, size);
  std::string before = graft::format_graph_table(*graph);
  DiagnosticEngine diags;
  if (!graft::verify_graph(*graph, diags, "recipe")) {
    fail("rewrite: the recipe built an invalid graph (harness bug)", before + diags.render());
  }
  std::unique_ptr<graft::Graph> original = graph->clone();
  std::vector<graft::TensorType> types = output_types(*graph);

  graft::RewriteOptions options;
  options.fold = graft::eval::reference_constant_folder();
  options.verify_each_phase = true;
  graft::RewriteResult result = graft::rewrite_graph(*graph, std_rules(), options, diags);
  if (!result.ok || diags.has_errors()) {
    fail("rewrite: the standard rules failed on a valid graph", before + diags.render());
  }
  if (!graft::verify_graph(*graph, diags, "rewritten")) {
    fail("rewrite: the rewritten graph fails the verifier",
         before + "--- after:\n" + graft::format_graph_table(*graph) + diags.render());
  }
  graph->compact();
  if (output_types(*graph) != types) {
    fail("rewrite: an output changed type",
         before + "--- after:\n" + graft::format_graph_table(*graph));
  }
  if (result.applied.empty() || !is_plain_float32(*original)) return 0;
  graft::runtime::EquivalenceOptions equivalence;
  equivalence.rtol = 1e-3;
  equivalence.atol = 1e-4;
  std::optional<graft::runtime::EquivalenceReport> report =
      graft::runtime::check_equivalence(*original, *graph, equivalence, diags, "fuzz");
  // nullopt: a graph the runtime cannot run (an op without a kernel); not this target's concern.
  if (report && !report->equivalent && !unstable_on(*original, *report)) {
    fail("rewrite: the rewritten graph computes something else",
         report->message + "\n" + before + "--- after:\n" + graft::format_graph_table(*graph));
  }
  return 0;
}
