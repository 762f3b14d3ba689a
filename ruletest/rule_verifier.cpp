// The rule verifier. Each synthesised graph goes through the path a hand-written test takes:
// its text becomes a `test` block of a small in-memory file that imports the rule's file and
// applies the rule alone, so sema checks it, dsl/test_graph builds it (random params from a
// seed), the rewrite driver applies the rule (constant folding and the verifier included), and
// runtime/equivalence compares the graph before and after on random inputs. Only the verdict
// differs from a test: a graph the rule does not match, or the runtime cannot run, is not a
// failure but a graph not checked; a rule is skipped when no graph could be checked. A failing
// variant is tried again on the smallest shapes, and its failing inputs are simplified.
#include "ruletest/rule_verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "dsl/literal.h"
#include "dsl/load.h"
#include "dsl/lower.h"
#include "dsl/test_graph.h"
#include "engine/rewrite/rewriter.h"
#include "ruletest/graph_match.h"
#include "ruletest/output_types.h"
#include "ruletest/rule_literals.h"
#include "ruletest/rule_synthesis.h"
#include "ruletest/rule_test_runner.h"
#include "eval/reference.h"
#include "runtime/equivalence.h"

namespace graft::ruletest {
namespace {

constexpr const char* kVirtualFile = "rewrite-verify.rules";
constexpr const char* kTestName = "rewrite_verify_synthesised";

std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += indent + line + "\n";
  return out;
}

/// Whether the reference interpreter runs `graph` on inputs of its types (zeros suffice: what
/// fails is an op that does not compute in a dtype, or a random one).
bool runs_on_reference(const Graph& graph) {
  std::vector<eval::Tensor> inputs;
  for (const Node* p : graph.placeholders()) {
    if (!p->type() || !is_concrete(p->type()->shape)) return false;
    inputs.push_back(eval::Tensor::zeros(p->type()->dtype, p->type()->shape));
  }
  DiagnosticEngine diags;
  return eval::run_reference(graph, inputs, diags).has_value();
}

/// What became of one synthesised graph.
struct GraphResult {
  enum class Kind { kChecked, kFailed, kNotMatched, kNotRunnable, kNotBuilt };
  Kind kind = Kind::kNotBuilt;
  std::string detail;
};

class GraphCheck {
 public:
  GraphCheck(const dsl::CheckedRule& rule, const std::string& path, const VerifyOptions& options)
      : rule_(rule), path_(std::filesystem::absolute(path).lexically_normal().string()),
        options_(options) {}

  /// Builds, rewrites and compares `graph`, variant `index` of the rule. `attempt` > 0 draws
  /// other params and inputs; with `shrink`, a failure's inputs are simplified.
  GraphResult run(const SynthesizedGraph& graph, int index, int attempt = 0, bool shrink = false) {
    std::string text = "import " + dsl::string_literal(path_) + "\ntest " + kTestName + " {\n" + graph.text +
                       "\napply " + rule_.name + "\nexpect equivalent()\n}\n";
    dsl::LoadOptions load;
    // The generated file imports the rule's file by its absolute path: that folder is allowed,
    // and whatever the user allowed for the file's own imports.
    load.paths = options_.paths;
    load.paths.allowed_roots.push_back(std::filesystem::path(path_).parent_path().string());
    load.read_file = [&](const std::string& p, std::string* error) -> std::optional<std::string> {
      if (p == kVirtualFile) return text;
      return dsl::read_rule_file(p, error);
    };
    SourceManager sources;
    DiagnosticEngine diags(&sources);
    std::optional<dsl::RuleFileSet> set = dsl::load_rule_files({kVirtualFile}, sources, diags, load);
    const dsl::CheckedTest* test = nullptr;
    if (set) {
      for (const dsl::CheckedTest& t : set->tests()) {
        if (t.name == kTestName) test = &t;
      }
    }
    if (test == nullptr) {
      return {GraphResult::Kind::kNotBuilt,
              "the synthesised graph does not check:\n" + diags.render() + graph.text};
    }
    std::string seed_name = fmt::format("{}#{}", rule_.name, index);
    if (attempt > 0) seed_name += fmt::format("/{}", attempt);
    uint64_t seed = dsl::rule_test_seed(seed_name, options_.seed);
    std::optional<dsl::TestGraph> built = dsl::build_test_graph(*test->decl, seed, diags);
    if (!built) {
      return {GraphResult::Kind::kNotBuilt, "the synthesised graph cannot be built:\n" + diags.render()};
    }
    std::unique_ptr<Graph> before = built->graph->clone();
    Graph& after = *built->graph;
    std::vector<std::string> applied;
    std::string header = fmt::format("graph {} (seed {:#x}):\n{}", index, seed,
                                     indent_lines(graph.text, "  "));
    if (!apply_plan(after, *set, test->plan, sources, diags, &applied)) {
      return {GraphResult::Kind::kFailed,
              "the rewrite failed on " + header + indent_lines(diags.render(), "  ")};
    }
    if (applied.empty()) return {GraphResult::Kind::kNotMatched, why_no_match(*before, *set, *test, sources, graph)};
    if (std::optional<std::string> changed = changed_output_type(*before, after)) {
      return {GraphResult::Kind::kFailed,
              fmt::format("counterexample: {}  rewritten ({}):\n{}  the rewrite changed the "
                          "graph's outputs: {}\n",
                          header, fmt::join(applied, ", "), format_graph_compact(after, {}, "    "),
                          *changed)};
    }
    runtime::EquivalenceOptions eq;
    eq.rtol = options_.rtol;
    eq.atol = options_.atol;
    eq.trials = options_.trials;
    eq.seed = seed;
    eq.shrink_runs = shrink ? kShrinkRuns : 0;
    // Inputs past every threshold the standard ops have (relu6's 6, hardswish's ±3) and most
    // clamp bounds a rule writes: a rule right only on [-1, 1) fails.
    eq.input_scales = {1, 8, 64};
    // Then zeros, ±inf, NaN and the values where behaviour changes: the standard activations'
    // thresholds (hardswish's ±3, relu6's 6) and the rule's own constants.
    eq.special_trials = 2;
    eq.special_values = {3.0f, 6.0f};
    for (double v : numeric_literals(rule_)) eq.special_values.push_back(static_cast<float>(v));
    std::optional<runtime::EquivalenceReport> report =
        runtime::check_equivalence(*before, after, eq, diags, "the synthesised graph");
    if (!report) {
      // What the runtime cannot compile (an op it computes in float32 only, on int64
      // tensors), the reference interpreter may run.
      DiagnosticEngine reference_diags(&sources);
      eq.on_reference = true;
      report = runtime::check_equivalence(*before, after, eq, reference_diags,
                                          "the synthesised graph");
      if (!report) {
        // A variant whose ops do not compute in its dtype is no instance of the rule.
        GraphResult::Kind kind = graph.dtype != DType::kFloat32 && !runs_on_reference(*before)
                                     ? GraphResult::Kind::kNotBuilt
                                     : GraphResult::Kind::kNotRunnable;
        // The reference's reason first: the runtime's diagnostics follow the rule file's own.
        return {kind, "neither the runtime nor the reference can run it: " + reference_diags.render() +
                          diags.render()};
      }
    }
    if (!report->equivalent) {
      return {GraphResult::Kind::kFailed,
              fmt::format("counterexample: {}  rewritten ({}):\n{}  {}\n{}", header,
                          fmt::join(applied, ", "), format_graph_compact(after, {}, "    "),
                          report->message, counterexample_text(*report, shrink))};
    }
    return {GraphResult::Kind::kChecked, ""};
  }

  /// Variant `index`'s failure on the smallest shapes that still fail (the variant's own
  /// `original` when no smaller graph does), with the failing inputs simplified.
  GraphResult smallest_failure(const SynthesizedGraph& original, int index) {
    for (ShapeSize size : kSmallShapeSizes) {
      std::string why;
      std::optional<SynthesizedGraph> small = synthesize_graph(rule_, index, &why, size);
      if (!small || small->text == original.text) continue;
      // A graph of a few elements may miss the value that exposes the rule: other inputs.
      for (int attempt = 0; attempt < kSmallAttempts; ++attempt) {
        GraphResult result = run(*small, index, attempt, true);
        if (result.kind == GraphResult::Kind::kFailed) return result;
        if (result.kind != GraphResult::Kind::kChecked) break;  // not an instance: no retry
      }
    }
    return run(original, index, 0, true);
  }

 private:
  /// The matcher's reason (as --explain gives it) for not rewriting at the pattern's anchor.
  std::string why_no_match(const Graph& graph, const dsl::RuleFileSet& set,
                           const dsl::CheckedTest& test, const SourceManager& sources,
                           const SynthesizedGraph& synthesized) {
    DiagnosticEngine diags(&sources);
    std::optional<RuleSet> rules = dsl::lower_plan(set, test.plan, sources, diags);
    std::string reason = "no reason given";
    if (rules) {
      CompiledRules compiled(*rules);
      std::optional<Explanation> why =
          explain_match(graph, compiled, rule_.name, synthesized.anchor, diags);
      if (why) reason = why->reason;
    }
    return "the rule does not match the synthesised graph: " + reason;
  }

  /// The simplified inputs of a failure and the outputs on them, indented for the report.
  static std::string counterexample_text(const runtime::EquivalenceReport& report, bool shrunk) {
    if (!report.counterexample || !shrunk) return "";
    const runtime::Counterexample& cx = *report.counterexample;
    std::string out = cx.shrunk ? "simplified: " + cx.message + "\n" : "";
    return indent_lines(out + runtime::format_counterexample(cx), "  ");
  }

  // Reruns of both graphs to simplify a failure's inputs: a graph of a few elements needs
  // a few dozen; a larger one keeps what the budget did not reach.
  static constexpr int kShrinkRuns = 300;
  static constexpr int kSmallAttempts = 3;

  const dsl::CheckedRule& rule_;
  std::string path_;
  const VerifyOptions& options_;
};

}  // namespace

VerifyOutcome verify_rule(const dsl::CheckedRule& rule, const std::string& path,
                          const VerifyOptions& options) {
  VerifyOutcome out;
  out.rule = rule.name;
  out.location = rule.location;
  GraphCheck check(rule, path, options);
  int graphs = variants_worth_trying(rule, options.graphs);
  std::vector<GraphResult> not_checked;
  for (int i = 0; i < graphs; ++i) {
    std::string why;
    std::optional<SynthesizedGraph> graph = synthesize_graph(rule, i, &why);
    GraphResult result = graph ? check.run(*graph, i)
                               : GraphResult{GraphResult::Kind::kNotBuilt, "cannot instantiate: " + why};
    if (result.kind == GraphResult::Kind::kChecked) {
      ++out.checked;
    } else if (result.kind == GraphResult::Kind::kFailed) {
      out.verdict = Verdict::kFail;
      out.detail = check.smallest_failure(*graph, i).detail;
      return out;  // one counterexample is enough
    } else {
      out.notes.push_back(fmt::format("graph {}: {}", i, result.detail));
      not_checked.push_back(result);
    }
  }
  // A graph the rule rewrote but the runtime cannot run (dropout in training mode) is an
  // instance the rule may be wrong on: the rule is not verified, whatever the others gave.
  auto unrunnable = std::find_if(not_checked.begin(), not_checked.end(), [](const GraphResult& r) {
    return r.kind == GraphResult::Kind::kNotRunnable;
  });
  if (out.checked > 0 && unrunnable == not_checked.end()) {
    out.verdict = Verdict::kPass;
    return out;
  }
  if (out.checked > 0) {
    out.verdict = Verdict::kSkip;
    out.detail = fmt::format("not verified: {} graph{} passed, but the rule also rewrites graphs "
                             "that cannot be run, where it is unchecked; {}",
                             out.checked, out.checked == 1 ? "" : "s", unrunnable->detail);
    return out;
  }
  // Nothing checked: the most telling reason (a rule that matches nothing over a graph that
  // could not be built), with the count.
  out.verdict = Verdict::kSkip;
  for (GraphResult::Kind kind : {GraphResult::Kind::kNotRunnable, GraphResult::Kind::kNotMatched,
                                 GraphResult::Kind::kNotBuilt}) {
    auto it = std::find_if(not_checked.begin(), not_checked.end(),
                           [&](const GraphResult& r) { return r.kind == kind; });
    if (it != not_checked.end()) {
      out.detail = it->detail;
      break;
    }
  }
  if (out.detail.rfind("cannot instantiate", 0) != 0) out.detail = "cannot instantiate: " + out.detail;
  return out;
}

std::vector<std::pair<const dsl::CheckedRule*, std::string>> rules_in_files(
    const dsl::RuleFileSet& set, const SourceManager& sources,
    const std::vector<std::string>& paths) {
  auto normal = [](const std::string& p) {
    return std::filesystem::path(p).lexically_normal().generic_string();
  };
  std::vector<std::pair<const dsl::CheckedRule*, std::string>> out;
  for (const dsl::CheckedRule& rule : set.rules()) {
    std::string file = normal(sources.name(rule.decl->range.file));
    for (const std::string& p : paths) {
      if (normal(p) == file) out.emplace_back(&rule, p);
    }
  }
  return out;
}

void attach_proof(VerifyOutcome& outcome, ProofResult proof) {
  if (outcome.verdict != Verdict::kFail && proof.verdict == ProofVerdict::kRefuted) {
    outcome.verdict = Verdict::kFail;
    outcome.detail = "refuted: " + proof.detail + "\n";
  } else if (outcome.verdict == Verdict::kSkip && proof.verdict == ProofVerdict::kProved) {
    outcome.notes.push_back("no graph was checked: " + outcome.detail);
    outcome.verdict = Verdict::kPass;
  }
  outcome.proof = std::move(proof);
}

void prove_outcome(VerifyOutcome& outcome, const Rule& rule, const ProveOptions& options) {
  if (outcome.verdict == Verdict::kFail) {
    outcome.proof_skipped = true;
    return;
  }
  attach_proof(outcome, prove_rule(rule, options));
}

std::string format_verify_outcome(const VerifyOutcome& outcome, bool verbose) {
  std::string out;
  const ProofVerdict proof = outcome.proof ? outcome.proof->verdict : ProofVerdict::kOutside;
  const std::string scope =
      outcome.proof && !outcome.proof->scope.empty() ? ", " + outcome.proof->scope : "";
  switch (outcome.verdict) {
    case Verdict::kPass:
      out = fmt::format("{} {} ({}, {} graph{}{}{}{})\n",
                        proof == ProofVerdict::kProved ? "PROVED" : "PASS", outcome.rule,
                        outcome.location, outcome.checked, outcome.checked == 1 ? "" : "s",
                        outcome.notes.empty() ? ""
                                              : fmt::format("; {} not instantiated",
                                                            outcome.notes.size()),
                        proof == ProofVerdict::kProved            ? "; over the reals and in float32" + scope
                        : proof == ProofVerdict::kProvedOverReals ? "; proved over the reals" + scope
                                                                  : std::string(),
                        outcome.proof && outcome.proof->timed_out ? "; " + outcome.proof->detail
                                                                  : "");
      break;
    case Verdict::kFail:
      out = fmt::format("{} {} ({}): {}",
                        outcome.detail.rfind("refuted: ", 0) == 0 ? "REFUTED" : "FAIL",
                        outcome.rule, outcome.location,
                        indent_lines(outcome.detail, "  ").substr(2));
      if (outcome.proof_skipped) {
        out += "  not proved: the prover does not run once the tests fail\n";
      }
      break;
    case Verdict::kSkip: {
      std::string first_line = outcome.detail.substr(0, outcome.detail.find('\n'));
      out = fmt::format("SKIP {} ({}): {}\n", outcome.rule, outcome.location, first_line);
      if (first_line.size() < outcome.detail.size()) {
        out += indent_lines(outcome.detail.substr(first_line.size() + 1), "  ");
      }
      break;
    }
  }
  if (verbose) {
    for (const std::string& note : outcome.notes) out += indent_lines(note, "  ");
    if (outcome.proof && !outcome.proof->detail.empty() && proof != ProofVerdict::kRefuted) {
      out += indent_lines(std::string(proof_verdict_name(proof)) + ": " + outcome.proof->detail, "  ");
    }
  }
  return out;
}

}  // namespace graft::ruletest
