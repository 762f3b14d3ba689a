// Rule testing from Python (graft.testing): a file's `test` blocks and `rewrite verify` of its
// rules, each outcome with the report the CLI prints for it, so that a pytest assertion can
// show exactly what `rewrite test` / `rewrite verify` would.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "dsl/load.h"
#include "python/bindings/bindings.h"
#include "ruletest/rule_test_runner.h"
#include "ruletest/rule_verifier.h"

namespace graft::python {
namespace {

/// Loads `path` with its imports; raises RulesError when it does not check.
dsl::RuleFileSet load_file(const std::string& path, SourceManager& sources,
                           const std::vector<std::string>& allow_paths) {
  DiagnosticEngine diags(&sources);
  dsl::LoadOptions options;
  options.paths.allowed_roots = allow_paths;
  std::optional<dsl::RuleFileSet> set = dsl::load_rule_files({path}, sources, diags, options);
  if (!set) raise<RulesError>(diags, path + " does not check");
  return std::move(*set);
}

/// [{name, location, passed, report}] for the tests of `path` whose name contains `filter`.
py::list run_tests(const std::string& path, const std::string& filter, uint64_t seed,
                   const std::vector<std::string>& allow_paths) {
  SourceManager sources;
  dsl::RuleFileSet set = load_file(path, sources, allow_paths);
  struct Result {
    std::string name, location, report;
    bool passed;
  };
  std::vector<Result> results;
  {
    py::gil_scoped_release release;
    ruletest::RunOptions options;
    options.seed = seed;
    for (const dsl::CheckedTest* test : ruletest::tests_in_files(set, sources, {path})) {
      if (!filter.empty() && test->name.find(filter) == std::string::npos) continue;
      ruletest::TestOutcome outcome = ruletest::run_rule_test(set, *test, sources, options);
      results.push_back({outcome.name, outcome.location, ruletest::format_outcome(outcome, false),
                         outcome.passed});
    }
  }
  py::list out;
  for (const Result& r : results) {
    py::dict d;
    d["name"] = r.name;
    d["location"] = r.location;
    d["passed"] = r.passed;
    d["report"] = r.report;
    out.append(d);
  }
  return out;
}

const char* verdict_name(ruletest::Verdict v) {
  switch (v) {
    case ruletest::Verdict::kPass: return "pass";
    case ruletest::Verdict::kFail: return "fail";
    case ruletest::Verdict::kSkip: return "skip";
  }
  return "skip";
}

/// [{rule, location, verdict, checked, report}] for the rules of `path` (`rewrite verify`).
py::list verify(const std::string& path, const std::string& filter, uint64_t seed, int graphs,
                int trials, double rtol, double atol, const std::vector<std::string>& allow_paths) {
  if (graphs < 1 || graphs > 32) throw GraftError("graphs must be in [1, 32]");
  if (trials < 1 || trials > 100) throw GraftError("trials must be in [1, 100]");
  SourceManager sources;
  dsl::RuleFileSet set = load_file(path, sources, allow_paths);
  std::vector<ruletest::VerifyOutcome> outcomes;
  {
    py::gil_scoped_release release;
    ruletest::VerifyOptions options;
    options.seed = seed;
    options.graphs = graphs;
    options.trials = trials;
    options.rtol = rtol;
    options.atol = atol;
    options.paths.allowed_roots = allow_paths;
    for (const auto& [rule, file] : ruletest::rules_in_files(set, sources, {path})) {
      if (!filter.empty() && rule->name.find(filter) == std::string::npos) continue;
      outcomes.push_back(ruletest::verify_rule(*rule, file, options));
    }
  }
  py::list out;
  for (const ruletest::VerifyOutcome& o : outcomes) {
    py::dict d;
    d["rule"] = o.rule;
    d["location"] = o.location;
    d["verdict"] = verdict_name(o.verdict);
    d["checked"] = o.checked;
    d["report"] = ruletest::format_verify_outcome(o, true);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_testing(py::module_& m) {
  m.def("run_tests", &run_tests, py::arg("path"), py::arg("filter") = "", py::arg("seed") = 0,
        py::arg("allow_paths") = std::vector<std::string>{});
  m.def("verify", &verify, py::arg("path"), py::arg("filter") = "", py::arg("seed") = 0,
        py::arg("graphs") = 8, py::arg("trials") = 2, py::arg("rtol") = 1e-4,
        py::arg("atol") = 1e-5, py::arg("allow_paths") = std::vector<std::string>{});
}

}  // namespace graft::python
