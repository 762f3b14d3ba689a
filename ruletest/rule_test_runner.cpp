// The rule test runner. A test runs in four steps, each of which can only fail the test, not
// the run: build the graph (dsl/test_graph.h), apply the plan (the rewrite driver with the
// reference constant folder and the verifier after every phase, exactly as `rewrite --rules`
// runs), check the expectations in source order, and check numerical equivalence.
//
// Every test checks that the rewrite kept the numbers, whether or not it says
// `expect equivalent(...)`: a rule that changes what a graph computes is wrong whatever its
// counts say. Without the expectation the default tolerances apply, and a graph the runtime
// cannot run (a dtype or op without a kernel) only skips the check, with a note; with it, that
// is a failure. Either way a changed output type (dtype or shape) fails the test.
#include "ruletest/rule_test_runner.h"

#include <fmt/format.h>

#include <filesystem>

#include "dsl/lower.h"
#include "engine/ir/verifier.h"
#include "engine/rewrite/rewriter.h"
#include "eval/constant_folder.h"
#include "ruletest/graph_match.h"
#include "ruletest/output_types.h"

namespace graft::ruletest {
namespace {

std::string location_of(const SourceManager& sources, SourceRange range) {
  if (!range.is_valid()) return "<unknown>";
  return fmt::format("{}:{}", sources.name(range.file),
                     sources.line_col(range.file, range.begin).line);
}

/// The source text of `node`, on one line (an expected graph block is shortened to `graph {…}`).
std::string text_of(const SourceManager& sources, const dsl::ast::Node& node) {
  if (node.kind == dsl::ast::NodeKind::kGraph) return "graph { … }";
  std::string_view text =
      sources.text(node.range.file).substr(node.range.begin, node.range.end - node.range.begin);
  std::string out;
  for (char c : text) {
    if (c == '\n') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += indent + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

bool compare(int64_t actual, dsl::ast::CmpOp op, const dsl::ast::Expr& rhs) {
  using dsl::ast::CmpOp;
  auto number = [](const dsl::ast::Expr* e) {
    const auto* n = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(e);
    return n != nullptr ? n->int_value : -1;
  };
  switch (op) {
    case CmpOp::kEq:
      return actual == number(&rhs);
    case CmpOp::kNe:
      return actual != number(&rhs);
    case CmpOp::kLt:
      return actual < number(&rhs);
    case CmpOp::kLe:
      return actual <= number(&rhs);
    case CmpOp::kGt:
      return actual > number(&rhs);
    case CmpOp::kGe:
      return actual >= number(&rhs);
    case CmpOp::kIn:
      if (const auto* set = dsl::ast::dyn_cast<dsl::ast::SetExpr>(&rhs)) {
        for (const dsl::ast::Expr* item : set->items) {
          if (number(item) == actual) return true;
        }
        return false;
      }
      if (const auto* range = dsl::ast::dyn_cast<dsl::ast::RangeExpr>(&rhs)) {
        return actual >= range->lo->int_value && actual <= range->hi->int_value;
      }
      return false;
    case CmpOp::kNone:
      break;
  }
  return false;
}

/// The tolerances of `equivalent(rtol=…, atol=…, trials=…)`; defaults for options left out.
runtime::EquivalenceOptions equivalence_options(const dsl::ast::CallExpr& call, uint64_t seed) {
  runtime::EquivalenceOptions options;
  options.rtol = kDefaultRtol;
  options.atol = kDefaultAtol;
  options.trials = kDefaultTrials;
  options.seed = seed;
  for (const dsl::ast::Arg* a : call.args) {
    const auto* n = dsl::ast::dyn_cast<dsl::ast::NumberExpr>(a->value);
    if (a->keyword == nullptr || n == nullptr) continue;
    if (a->keyword->text == "rtol") options.rtol = n->float_value;
    if (a->keyword->text == "atol") options.atol = n->float_value;
    if (a->keyword->text == "trials") options.trials = static_cast<int>(n->int_value);
  }
  return options;
}

class TestRun {
 public:
  TestRun(const dsl::RuleFileSet& set, const dsl::CheckedTest& test, const SourceManager& sources,
          const RunOptions& options)
      : set_(set),
        test_(test),
        sources_(sources),
        seed_(dsl::rule_test_seed(test.name, options.seed)) {
    out_.name = test.name;
    out_.location = location_of(sources, test.decl->name->range);
  }

  TestOutcome run() {
    if (build() && rewrite()) {
      bool explicit_equivalence = false;
      for (const dsl::ast::Node* clause : test_.decl->clauses) {
        const auto* expect = dsl::ast::dyn_cast<dsl::ast::ExpectClause>(clause);
        if (expect == nullptr) continue;
        for (const dsl::ast::Node* item : expect->items) {
          if (const auto* g = dsl::ast::dyn_cast<dsl::ast::GraphBlock>(item)) {
            check_graph(*g);
          } else {
            explicit_equivalence =
                check_condition(*static_cast<const dsl::ast::Condition*>(item)) ||
                explicit_equivalence;
          }
        }
      }
      if (!explicit_equivalence) check_implicit_equivalence();
    }
    out_.passed = out_.failures.empty();
    return std::move(out_);
  }

 private:
  void fail(const dsl::ast::Node* at, std::string expectation, std::string detail,
            bool shows_graph = false, bool is_expectation = true) {
    out_.failures.push_back({at != nullptr ? location_of(sources_, at->range) : out_.location,
                             std::move(expectation), std::move(detail), shows_graph,
                             is_expectation});
  }

  bool build() {
    DiagnosticEngine diags(&sources_);
    std::optional<dsl::TestGraph> built = dsl::build_test_graph(*test_.decl, seed_, diags);
    if (!built) {
      fail(test_.decl->graph, "the test graph cannot be built", diags.render(), false, false);
      return false;
    }
    out_.before = built->graph->clone();
    out_.after = std::move(built->graph);
    return true;
  }

  bool rewrite() {
    DiagnosticEngine diags(&sources_);
    if (!apply_plan(*out_.after, set_, test_.plan, sources_, diags, &out_.applied)) {
      fail(test_.decl->name, "the rewrite failed", diags.render(), false, false);
      out_.after.reset();
      return false;
    }
    return true;
  }

  void check_graph(const dsl::ast::GraphBlock& block) {
    DiagnosticEngine diags(&sources_);
    std::optional<dsl::TestGraph> expected =
        dsl::build_expected_graph(*test_.decl, block, seed_, diags);
    if (!expected) {
      fail(&block, "graph { … }", "the expected graph cannot be built:\n" + diags.render());
      return;
    }
    GraphMatchOptions options;
    options.any_constants = expected->random_constants;
    GraphMatch match = match_graphs(*out_.after, *expected->graph, options);
    if (match.equal) return;
    fail(&block, "graph { … }",
         "the graphs differ: " + match.reason + "\nexpected graph:\n" + match.expected +
             "actual graph (after the rewrite):\n" + match.actual,
         true);
  }

  /// Checks a count or equivalence expectation; returns true for `equivalent(...)`.
  bool check_condition(const dsl::ast::Condition& c) {
    const auto* call = dsl::ast::dyn_cast<dsl::ast::CallExpr>(c.lhs);
    if (call == nullptr || call->ops.empty()) return false;
    std::string text = text_of(sources_, c);
    if (call->ops[0]->text == "equivalent") {
      check_equivalence(&c, text, equivalence_options(*call, seed_), true);
      return true;
    }
    const auto* op =
        call->args.empty() ? nullptr : dsl::ast::dyn_cast<dsl::ast::NameExpr>(call->args[0]->value);
    if (op == nullptr || c.rhs == nullptr) return false;
    int count = count_ops(*out_.after, op->name);
    if (!compare(count, c.op, *c.rhs)) {
      fail(&c, text, fmt::format("expected: {}\nactual:   count({}) is {}", text, op->name, count));
    }
    return false;
  }

  void check_implicit_equivalence() {
    runtime::EquivalenceOptions options;
    options.rtol = kDefaultRtol;
    options.atol = kDefaultAtol;
    options.trials = kDefaultTrials;
    options.seed = seed_;
    check_equivalence(
        nullptr,
        fmt::format("equivalent() (implicit: rtol={:g}, atol={:g})", options.rtol, options.atol),
        options, false);
  }

  void check_equivalence(const dsl::ast::Node* at, const std::string& text,
                         const runtime::EquivalenceOptions& options, bool required) {
    if (std::optional<std::string> changed = changed_output_type(*out_.before, *out_.after)) {
      fail(at, text, "the rewrite changed the graph's outputs: " + *changed);
      return;
    }
    DiagnosticEngine diags(&sources_);
    // Does the original graph run at all? If not, and nobody asked, there is nothing to check.
    std::optional<runtime::EquivalenceReport> report = runtime::check_equivalence(
        *out_.before, *out_.after, options, diags, "test '" + out_.name + "'");
    if (!report) {
      std::string why = diags.render();
      if (!required) {
        out_.notes.push_back("numerical check skipped: the runtime cannot run the graphs:\n" + why);
        return;
      }
      fail(at, text, "the graphs cannot be run:\n" + why);
      return;
    }
    if (!report->equivalent) {
      fail(at, text, "the rewritten graph computes different numbers:\n" + report->message);
    }
  }

  const dsl::RuleFileSet& set_;
  const dsl::CheckedTest& test_;
  const SourceManager& sources_;
  uint64_t seed_;
  TestOutcome out_;
};

std::string normalize(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().generic_string();
}

}  // namespace

int count_ops(const Graph& graph, std::string_view op) {
  int n = 0;
  for (const Node* node : graph.nodes()) {
    if (node->is(NodeKind::kCallFunction) && node->target() == op) ++n;
  }
  return n;
}

bool apply_plan(Graph& graph, const dsl::RuleFileSet& set,
                const std::vector<dsl::CheckedPhase>& plan, const SourceManager& sources,
                DiagnosticEngine& diags, std::vector<std::string>* applied) {
  std::optional<RuleSet> rules = dsl::lower_plan(set, plan, sources, diags);
  if (!rules) return false;
  CompiledRules compiled(*rules);
  RewriteOptions options;
  options.fold = eval::reference_constant_folder();
  options.verify_each_phase = true;
  RewriteResult result = rewrite_graph(graph, compiled, options, diags);
  if (!result.ok || diags.has_errors()) return false;
  if (!verify_graph(graph, diags, "rewritten test graph")) return false;
  graph.compact();
  if (applied != nullptr) {
    for (const AppliedRewrite& a : result.applied) applied->push_back(a.rule + " at " + a.anchor);
  }
  return true;
}

TestOutcome run_rule_test(const dsl::RuleFileSet& set, const dsl::CheckedTest& test,
                          const SourceManager& sources, const RunOptions& options) {
  return TestRun(set, test, sources, options).run();
}

std::vector<const dsl::CheckedTest*> tests_in_files(const dsl::RuleFileSet& set,
                                                    const SourceManager& sources,
                                                    const std::vector<std::string>& paths) {
  std::vector<std::string> wanted;
  for (const std::string& p : paths) wanted.push_back(normalize(p));
  std::vector<const dsl::CheckedTest*> out;
  for (const dsl::CheckedTest& t : set.tests()) {
    const std::string& file = sources.name(t.decl->range.file);
    if (std::find(wanted.begin(), wanted.end(), normalize(file)) != wanted.end()) out.push_back(&t);
  }
  return out;
}

std::string format_outcome(const TestOutcome& outcome, bool verbose) {
  std::string out =
      fmt::format("{} {} {}\n", outcome.passed ? "PASS" : "FAIL", outcome.location, outcome.name);
  bool graph_shown = false;
  for (const Failure& f : outcome.failures) {
    out +=
        fmt::format("  {}: {}{}\n", f.location, f.is_expectation ? "expect " : "", f.expectation);
    out += indent_lines(f.detail, "    ");
    graph_shown = graph_shown || f.shows_graph;
  }
  for (const std::string& note : outcome.notes) out += indent_lines("note: " + note, "  ");
  bool show_graphs = verbose || (!outcome.passed && !graph_shown);
  if (show_graphs && outcome.before) {
    out += "  graph before the rewrite:\n" + format_graph_compact(*outcome.before, {}, "    ");
  }
  if (show_graphs && outcome.after) {
    out += "  graph after the rewrite";
    out += outcome.applied.empty() ? " (no rule applied):\n"
                                   : fmt::format(" ({}):\n", fmt::join(outcome.applied, ", "));
    out += format_graph_compact(*outcome.after, {}, "    ");
  }
  return out;
}

}  // namespace graft::ruletest
