// ruletest/rule_verifier: a wrong rule's counterexample is shrunk, to the smallest shapes that
// still fail and to simplified inputs, shown with the outputs expected and got for them.
#include "ruletest/rule_verifier.h"

#include <catch2/catch.hpp>

#include "dsl/load.h"
#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

/// `rewrite verify` of rule `name` in the source tree's file `relative`.
ruletest::VerifyOutcome verify(const std::string& relative, const std::string& name) {
  SourceManager sources;
  DiagnosticEngine diags(&sources);
  const std::string path = graft::testing::source_path(relative);
  std::optional<dsl::RuleFileSet> set = dsl::load_rule_files({path}, sources, diags);
  INFO(diags.render());
  REQUIRE(set);
  for (const auto& [rule, file] : ruletest::rules_in_files(*set, sources, {path})) {
    if (rule->name == name) return ruletest::verify_rule(*rule, file, {});
  }
  FAIL("no rule " << name);
  return {};
}

}  // namespace

TEST_CASE("relu6 → relu fails on a one-element graph whose input is the first integer past 6",
          "[ruletest][verifier]") {
  ruletest::VerifyOutcome out = verify("tests/rules/data/wrong_near_zero.rules", "relu6_to_relu");
  INFO(out.detail);
  REQUIRE(out.verdict == ruletest::Verdict::kFail);
  CHECK_THAT(out.detail, Catch::Contains("graph(x: f32[1, 1, 1, 1]) {"));
  CHECK_THAT(out.detail, Catch::Contains("\n  simplified: output 0 at [0, 0, 0, 0]: expected 6, got 7 "));
  CHECK_THAT(out.detail, Catch::EndsWith("\n  inputs: x = [[[[7]]]]\n"
                                         "  expected: [[[[6]]]]\n"
                                         "  got: [[[[7]]]]\n"));
}

TEST_CASE("x * 0 → 0 fails with the NaN input that exposes it", "[ruletest][verifier]") {
  ruletest::VerifyOutcome out =
      verify("tests/rules/data/wrong_special_values.rules", "mul_by_zero_is_zero");
  INFO(out.detail);
  REQUIRE(out.verdict == ruletest::Verdict::kFail);
  CHECK_THAT(out.detail, Catch::Contains("graph(x: f32[1, 1, 1, 1]) {"));
  CHECK_THAT(out.detail, Catch::EndsWith("\n  inputs: x = [[[[nan]]]]\n"
                                         "  expected: [[[[nan]]]]\n"
                                         "  got: [[[[0]]]]\n"));
}

TEST_CASE("a wrong fold into a convolution fails on the smallest input its kernel allows, all zeros",
          "[ruletest][verifier]") {
  // conv2d's 3 × 3 kernel needs padding on 1 × 1 and 2 × 2 images: a variant with padding 1
  // fails on one channel of 1 × 1, and the bias alone differs, so a zero suffices.
  ruletest::VerifyOutcome out =
      verify("tests/rules/data/wrong_fold_bn.rules", "fold_bn_without_eps");
  INFO(out.detail);
  REQUIRE(out.verdict == ruletest::Verdict::kFail);
  CHECK_THAT(out.detail, Catch::Contains("graph(x: f32[1, 1, 1, 1]) {"));
  CHECK_THAT(out.detail, Catch::Contains("\n  inputs: x = [[[[0]]]]\n"));
}

TEST_CASE("a passing rule reports no counterexample", "[ruletest][verifier]") {
  ruletest::VerifyOutcome out = verify("tests/rules/data/wrong_fold_bn.rules", "fold_bn");
  CHECK(out.verdict == ruletest::Verdict::kPass);
  CHECK(out.detail.empty());
}

TEST_CASE("a rule on constants is checked on a graph whose constant meets its conditions",
          "[ruletest][verifier]") {
  // `where buffer(s), value(s) == 2`: the synthesised s is a buffer filled with twos, so the
  // rule matches and its replacement (x) differs from x * 2.
  ruletest::VerifyOutcome out =
      verify("tests/rules/data/wrong_buffer_scale.rules", "drop_buffer_of_twos");
  INFO(out.detail);
  REQUIRE(out.verdict == ruletest::Verdict::kFail);
  CHECK_THAT(out.detail, Catch::Contains("s = param f32[1] buffer = 2.0\n"));
  CHECK_THAT(out.detail, Catch::EndsWith("\n  inputs: x = [[[[1]]]]\n"
                                         "  expected: [[[[2]]]]\n"
                                         "  got: [[[[1]]]]\n"));
}
