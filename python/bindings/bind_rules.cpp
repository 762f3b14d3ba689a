// graft._graft.Rules (rule files loaded, checked and compiled once) and rewriting a model with
// them, as `rewrite --rules` does: the driver with the reference constant folder, the verifier
// after it, then compaction. The model is copied first; the caller's stays as it was.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/ir/verifier.h"
#include "engine/rewrite/rewriter.h"
#include "eval/constant_folder.h"
#include "python/bindings/bindings.h"

namespace graft::python {
namespace {

/// Loaded rules. The sources stay loaded so that a rewrite's errors quote the rule's line.
struct RulesHandle {
  std::shared_ptr<SourceManager> sources;
  std::shared_ptr<const RuleSet> rules;
  std::shared_ptr<const CompiledRules> compiled;
  std::vector<std::string> paths;
  std::string warnings;  // rendered warnings of the check (unused bindings, …)
};

RulesHandle load_rules(const std::vector<std::string>& paths,
                       const std::vector<std::string>& allow_paths) {
  if (paths.empty()) throw RulesError("Rules.load needs at least one .rules file");
  RulesHandle h;
  h.sources = std::make_shared<SourceManager>();
  h.paths = paths;
  DiagnosticEngine diags(h.sources.get());
  std::optional<RuleSet> rules;
  {
    py::gil_scoped_release release;
    dsl::LoadOptions options;
    options.paths.allowed_roots = allow_paths;
    std::optional<dsl::RuleFileSet> files = dsl::load_rule_files(paths, *h.sources, diags, options);
    if (files) rules = dsl::lower(*files, *h.sources, diags);
  }
  if (!rules) raise<RulesError>(diags, "the rules do not check");
  if (diags.warning_count() > 0) h.warnings = diags.render();
  auto set = std::make_shared<const RuleSet>(std::move(*rules));
  h.compiled = std::make_shared<const CompiledRules>(*set);
  h.rules = std::move(set);
  return h;
}

py::dict stats_value(const RuleSet& rules, const RewriteResult& result) {
  py::dict out;
  for (size_t i = 0; i < rules.rules.size() && i < result.stats.size(); ++i) {
    const RuleStats& s = result.stats[i];
    py::dict d;
    d["candidates"] = s.candidates;
    d["matches"] = s.matches;
    d["applied"] = s.applied;
    d["seconds"] = s.seconds;
    out[py::str(rules.rules[i].name)] = d;
  }
  return out;
}

/// (the rewritten copy, [(rule, anchor), …], {rule: stats}).
py::tuple rewrite(const ModelHandle& model, const RulesHandle& rules, bool stats, bool verify_each) {
  auto out = std::make_shared<Model>();
  out->path = model.model->path;
  out->metadata = model.model->metadata;
  DiagnosticEngine diags(rules.sources.get());
  RewriteResult result;
  {
    py::gil_scoped_release release;
    out->graph = model.graph().clone();
    RewriteOptions options;
    options.fold = eval::reference_constant_folder();
    options.verify_each_phase = verify_each;
    options.time_rules = stats;
    result = rewrite_graph(*out->graph, *rules.compiled, options, diags);
    if (result.ok && !verify_graph(*out->graph, diags, "rewritten " + model.model->path)) {
      result.ok = false;
    }
    if (result.ok) out->graph->compact();
  }
  if (!result.ok || diags.has_errors()) raise<RewriteError>(diags, "the rewrite failed");
  py::list applied;
  for (const AppliedRewrite& a : result.applied) applied.append(py::make_tuple(a.rule, a.anchor));
  return py::make_tuple(ModelHandle{std::move(out)}, applied,
                        stats ? py::object(stats_value(*rules.rules, result)) : py::none());
}

/// (matched, reason, the rule's `///` doc) for `rule` at node `node`.
py::tuple explain(const ModelHandle& model, const RulesHandle& rules, const std::string& rule,
                  const std::string& node) {
  DiagnosticEngine diags(rules.sources.get());
  std::optional<Explanation> why = explain_match(model.graph(), *rules.compiled, rule, node, diags);
  if (!why) raise<RewriteError>(diags, "cannot explain " + rule + "@" + node);
  int index = rules.rules->find_rule(rule);
  std::string doc = index >= 0 ? rules.rules->rules[static_cast<size_t>(index)].doc : "";
  return py::make_tuple(why->matched, why->reason, doc);
}

/// (applied, the CLI's text) for `rule` at `node` over a whole run of `rules` on `model`.
py::tuple explain_run(const ModelHandle& model, const RulesHandle& rules, const std::string& rule,
                      const std::string& node) {
  DiagnosticEngine diags(rules.sources.get());
  std::optional<RunExplanation> run;
  {
    py::gil_scoped_release release;
    RewriteOptions options;
    options.fold = eval::reference_constant_folder();
    run = explain_in_run(model.graph(), *rules.compiled, options, rule, node, diags);
  }
  if (!run) raise<RewriteError>(diags, "cannot explain " + rule + "@" + node);
  return py::make_tuple(applied_at(*run, rule, node), format_run_explanation(rule, node, *run));
}

}  // namespace

void bind_rules(py::module_& m) {
  py::class_<RulesHandle>(m, "Rules", "Rule files, loaded, checked and compiled into one matcher")
      .def_static("load", &load_rules, py::arg("paths"),
                  py::arg("allow_paths") = std::vector<std::string>{},
                  "Loads .rules files with their imports; raises RulesError with file:line:col")
      .def_readonly("paths", &RulesHandle::paths)
      .def_readonly("warnings", &RulesHandle::warnings)
      .def("rule_names",
           [](const RulesHandle& h) {
             std::vector<std::string> names;
             for (const Rule& r : h.rules->rules) names.push_back(r.name);
             return names;
           })
      .def("phase_names",
           [](const RulesHandle& h) {
             std::vector<std::string> names;
             for (const Phase& p : h.rules->phases) names.push_back(p.name);
             return names;
           })
      .def("dump", [](const RulesHandle& h) { return h.compiled->dump(); },
           "The compiled matcher as `rewrite check --dump` prints it");
  m.def("rewrite", &rewrite, py::arg("model"), py::arg("rules"), py::arg("stats") = false,
        py::arg("verify_each") = false);
  m.def("explain", &explain, py::arg("model"), py::arg("rules"), py::arg("rule"), py::arg("node"));
  m.def("explain_run", &explain_run, py::arg("model"), py::arg("rules"), py::arg("rule"),
        py::arg("node"));
}

}  // namespace graft::python
