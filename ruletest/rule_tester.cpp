// RuleTester: a graph string becomes a `test` block of a small in-memory rule file that
// imports the rules under test, so the graph goes through the same parser, sema and graph
// builder as `rewrite test` (one syntax, one set of diagnostics). An expected graph is checked
// the same way: the file is loaded again with `expect graph { … }` added to the test.
#include "ruletest/rule_tester.h"

#include <filesystem>
#include <optional>

#include "dsl/load.h"
#include "dsl/literal.h"
#include "ruletest/graph_match.h"
#include "ruletest/rule_test_runner.h"

namespace graft::testing {
namespace {

constexpr const char* kTestFile = "rule_tester_graph.rules";
constexpr const char* kTestName = "rule_tester_graph";

/// The rules under test and one test block, loaded and checked.
struct Loaded {
  std::unique_ptr<SourceManager> sources = std::make_unique<SourceManager>();
  std::optional<dsl::RuleFileSet> set;
  const dsl::CheckedTest* test = nullptr;
  std::string diagnostics;
};

}  // namespace

struct RuleResult::Impl {
  // What to load again for matches().
  std::string rules_path;  // the path to import
  std::string rules_text;  // for from_text: the text behind rules_path
  bool rules_in_memory = false;
  std::string apply;
  std::string graph_text;
  uint64_t seed = 0;  // the test's seed

  Loaded loaded;
  bool ok = false;
  std::string diagnostics;
  std::unique_ptr<Graph> before;
  std::unique_ptr<Graph> after;
  std::vector<std::string> applied;

  Loaded load(const std::string& expect) const {
    std::string text =
        "import " + dsl::string_literal(rules_path) + "\ntest " + kTestName + " {\n" + graph_text + "\n";
    if (!apply.empty()) text += "apply " + apply + "\n";
    if (!expect.empty()) text += "expect " + expect + "\n";
    text += "}\n";
    dsl::LoadOptions options;
    // The generated file imports the rules under test by the path given: their folder is allowed.
    options.paths.allowed_roots = {std::filesystem::path(rules_path).parent_path().string()};
    options.read_file = [&](const std::string& path,
                            std::string* error) -> std::optional<std::string> {
      if (path == kTestFile) return text;
      if (rules_in_memory && path == rules_path) return rules_text;
      return dsl::read_rule_file(path, error);
    };
    Loaded out;
    DiagnosticEngine diags(out.sources.get());
    out.set = dsl::load_rule_files({kTestFile}, *out.sources, diags, options);
    if (out.set) {
      for (const dsl::CheckedTest& t : out.set->tests()) {
        if (t.name == kTestName) out.test = &t;
      }
    }
    if (diags.has_errors()) out.diagnostics = diags.render();
    return out;
  }
};

RuleResult::RuleResult(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RuleResult::RuleResult(RuleResult&&) noexcept = default;
RuleResult& RuleResult::operator=(RuleResult&&) noexcept = default;
RuleResult::~RuleResult() = default;

bool RuleResult::ok() const { return impl_->ok; }
const std::string& RuleResult::diagnostics() const { return impl_->diagnostics; }
const Graph& RuleResult::graph() const { return *impl_->after; }
const Graph& RuleResult::original() const { return *impl_->before; }
const std::vector<std::string>& RuleResult::applied() const { return impl_->applied; }

int RuleResult::count(std::string_view op) const {
  return impl_->ok ? ruletest::count_ops(*impl_->after, op) : 0;
}

std::string RuleResult::dump() const {
  return impl_->ok ? ruletest::format_graph_compact(*impl_->after) : impl_->diagnostics;
}

CheckResult RuleResult::matches(const std::string& expected) const {
  if (!impl_->ok) return {false, impl_->diagnostics};
  std::string block = expected;
  size_t start = block.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && block[start] == '{') block = "graph " + block;
  Loaded loaded = impl_->load(block);
  const dsl::ast::GraphBlock* graph = nullptr;
  if (loaded.test != nullptr) {
    for (const dsl::ast::Node* clause : loaded.test->decl->clauses) {
      if (const auto* e = dsl::ast::dyn_cast<dsl::ast::ExpectClause>(clause)) {
        if (!e->items.empty()) graph = dsl::ast::dyn_cast<dsl::ast::GraphBlock>(e->items[0]);
      }
    }
  }
  if (graph == nullptr) {
    return {false, loaded.diagnostics.empty()
                       ? "the expected graph must be written 'graph { ... }'"
                       : "the expected graph does not check:\n" + loaded.diagnostics};
  }
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<dsl::TestGraph> built =
      dsl::build_expected_graph(*loaded.test->decl, *graph, impl_->seed, diags);
  if (!built) return {false, "the expected graph cannot be built:\n" + diags.render()};
  ruletest::GraphMatchOptions options;
  options.any_constants = built->random_constants;
  ruletest::GraphMatch match = ruletest::match_graphs(*impl_->after, *built->graph, options);
  if (match.equal) return {true, ""};
  return {false, "the graphs differ: " + match.reason + "\nexpected graph:\n" + match.expected +
                     "actual graph (after the rewrite):\n" + match.actual};
}

CheckResult RuleResult::equivalent(Tolerance tolerance) const {
  if (!impl_->ok) return {false, impl_->diagnostics};
  runtime::EquivalenceOptions options;
  options.rtol = tolerance.rtol;
  options.atol = tolerance.atol;
  options.trials = tolerance.trials;
  options.seed = impl_->seed;
  DiagnosticEngine diags;
  std::optional<runtime::EquivalenceReport> report =
      runtime::check_equivalence(*impl_->before, *impl_->after, options, diags, "test graph");
  if (!report) return {false, "the graphs cannot be run:\n" + diags.render()};
  if (!report->equivalent) {
    return {false, "the rewritten graph computes different numbers: " + report->message +
                       "\ngraph before the rewrite:\n" +
                       ruletest::format_graph_compact(*impl_->before, {}, "    ") +
                       "graph after the rewrite:\n" +
                       ruletest::format_graph_compact(*impl_->after, {}, "    ")};
  }
  return {true, ""};
}

RuleTester RuleTester::from_file(const std::string& path) {
  RuleTester t;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  t.path_ = (ec ? std::filesystem::path(path) : abs).lexically_normal().generic_string();
  return t;
}

RuleTester RuleTester::from_text(std::string text, std::string name) {
  RuleTester t;
  t.text_ = std::move(text);
  t.name_ = std::filesystem::path(name).lexically_normal().generic_string();
  return t;
}

RuleResult RuleTester::apply(const std::string& rules, const std::string& graph) const {
  auto impl = std::make_unique<RuleResult::Impl>();
  impl->rules_path = path_.empty() ? name_ : path_;
  impl->rules_text = text_;
  impl->rules_in_memory = path_.empty();
  impl->apply = rules;
  impl->graph_text = graph;
  impl->seed = dsl::rule_test_seed(kTestName, seed_);
  impl->loaded = impl->load("");
  Loaded& loaded = impl->loaded;
  if (loaded.test == nullptr) {
    impl->diagnostics =
        loaded.diagnostics.empty() ? "the graph does not check" : loaded.diagnostics;
    return RuleResult(std::move(impl));
  }
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<dsl::TestGraph> built =
      dsl::build_test_graph(*loaded.test->decl, impl->seed, diags);
  if (!built) {
    impl->diagnostics = diags.render();
    return RuleResult(std::move(impl));
  }
  impl->before = built->graph->clone();
  impl->after = std::move(built->graph);
  if (!ruletest::apply_plan(*impl->after, *loaded.set, loaded.test->plan, *loaded.sources, diags,
                            &impl->applied)) {
    impl->diagnostics = "the rewrite failed:\n" + diags.render();
    return RuleResult(std::move(impl));
  }
  impl->ok = true;
  return RuleResult(std::move(impl));
}

}  // namespace graft::testing
