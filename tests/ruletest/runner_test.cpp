// ruletest/rule_test_runner: the tests of tests/ruletest/data/*.rules run as `rewrite test`
// runs them — which pass, which fail and how the failures read.
#include <catch2/catch.hpp>

#include "dsl/load.h"
#include "ruletest/rule_test_runner.h"
#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

struct Run {
  std::vector<ruletest::TestOutcome> outcomes;
  std::string report;
  const ruletest::TestOutcome& get(const std::string& name) const {
    for (const auto& o : outcomes) {
      if (o.name == name) return o;
    }
    FAIL("no test " << name);
    return outcomes.front();
  }
};

Run run_file(const std::string& relative, uint64_t seed = 0) {
  SourceManager sources;
  DiagnosticEngine diags(&sources);
  std::string path = graft::testing::source_path(relative);
  std::optional<dsl::RuleFileSet> set = dsl::load_rule_files({path}, sources, diags);
  INFO(diags.render());
  REQUIRE(set);
  Run run;
  for (const dsl::CheckedTest* t : ruletest::tests_in_files(*set, sources, {path})) {
    run.outcomes.push_back(ruletest::run_rule_test(*set, *t, sources, {seed}));
    run.report += ruletest::format_outcome(run.outcomes.back(), false);
  }
  return run;
}

}  // namespace

TEST_CASE("every test of passing.rules passes", "[ruletest][runner]") {
  Run run = run_file("tests/ruletest/data/passing.rules");
  INFO(run.report);
  REQUIRE(run.outcomes.size() == 4);
  for (const auto& o : run.outcomes) CHECK(o.passed);
  CHECK_THAT(run.report, Catch::StartsWith("PASS "));
  CHECK_THAT(run.report, Catch::Contains("passing.rules:46 fuse_conv_bn_folds\n"));
  CHECK(run.get("phases_in_order").applied.size() == 3);
}

TEST_CASE("the tests of the example rules and the sample file pass", "[ruletest][runner]") {
  for (const char* file : {"examples/rules/fuse.rules", "tests/dsl/data/fusion_sample.rules"}) {
    Run run = run_file(file);
    INFO(run.report);
    CHECK_FALSE(run.outcomes.empty());
    for (const auto& o : run.outcomes) CHECK(o.passed);
  }
}

TEST_CASE("each way of failing in failing.rules is reported", "[ruletest][runner]") {
  Run run = run_file("tests/ruletest/data/failing.rules");
  INFO(run.report);
  REQUIRE(run.outcomes.size() == 4);
  CHECK(run.get("passes").passed);

  const ruletest::TestOutcome& count = run.get("wrong_count");
  CHECK_FALSE(count.passed);
  REQUIRE(count.failures.size() == 1);
  CHECK(count.failures[0].expectation == "count(dropout) == 1");
  CHECK(count.failures[0].detail == "expected: count(dropout) == 1\nactual:   count(dropout) is 0");

  const ruletest::TestOutcome& graph = run.get("wrong_graph");
  REQUIRE(graph.failures.size() == 1);
  CHECK_THAT(graph.failures[0].detail,
             Catch::StartsWith("the graphs differ: output 0: 'relu' (conv2d_post) has "
                               "activation='relu', expected 'relu6'"));

  const ruletest::TestOutcome& eps = run.get("forgotten_eps");
  REQUIRE(eps.failures.size() == 1);
  CHECK(eps.failures[0].expectation == "equivalent(rtol=1e-4, atol=1e-5)");
  CHECK_THAT(eps.failures[0].detail, Catch::Contains("computes different numbers:\noutput 0 at ["));
}

TEST_CASE("a failure report shows the expectation, expected vs actual and the graphs",
          "[ruletest][runner]") {
  Run run = run_file("tests/ruletest/data/failing.rules");
  std::string report = ruletest::format_outcome(run.get("wrong_count"), false);
  std::string file = graft::testing::source_path("tests/ruletest/data/failing.rules");
  CHECK(report == "FAIL " + file +
                      ":44 wrong_count\n"
                      "  " +
                      file +
                      ":49: expect count(dropout) == 1\n"
                      "    expected: count(dropout) == 1\n"
                      "    actual:   count(dropout) is 0\n"
                      "  graph before the rewrite:\n"
                      "      x: float32[2, 8]\n"
                      "      dropout = dropout(x, training=False) : float32[2, 8]\n"
                      "      relu = relu(dropout) : float32[2, 8]\n"
                      "      return relu\n"
                      "  graph after the rewrite (remove_dropout at dropout):\n"
                      "      x: float32[2, 8]\n"
                      "      relu = relu(x) : float32[2, 8]\n"
                      "      return relu\n");
}

TEST_CASE("the seed changes the random values but not the verdicts", "[ruletest][runner]") {
  Run a = run_file("tests/ruletest/data/passing.rules", 1);
  Run b = run_file("tests/ruletest/data/passing.rules", 2);
  for (const auto& o : a.outcomes) CHECK(o.passed);
  for (const auto& o : b.outcomes) CHECK(o.passed);
  const ConstantTensor* wa = a.get("fuse_conv_bn_folds").before->constants().find("w");
  const ConstantTensor* wb = b.get("fuse_conv_bn_folds").before->constants().find("w");
  REQUIRE(wa != nullptr);
  REQUIRE(wb != nullptr);
  CHECK(wa->f32()[0] != wb->f32()[0]);
}

TEST_CASE("a rewrite that changes an output's dtype fails its test, runnable or not",
          "[ruletest][runner]") {
  Run run = run_file("tests/ruletest/data/output_type_change.rules");
  INFO(run.report);
  REQUIRE(run.outcomes.size() == 2);
  CHECK(run.get("mul_one_on_float").passed);
  const ruletest::TestOutcome& int64 = run.get("mul_one_on_int64");
  CHECK_FALSE(int64.passed);
  REQUIRE(int64.failures.size() == 1);
  // The driver refuses the replacement itself (it must keep the type of the value it
  // replaces); the runner's output-type check stands behind it.
  CHECK_THAT(int64.failures[0].detail,
             Catch::Contains("changes the type of 'mul' from float32[4] to int64[4]"));
}
