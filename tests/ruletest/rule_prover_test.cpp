// The prover of the algebraic fragment: sound identities are proved (over the reals and in
// float32, or over the reals only where float32 rounding differs), wrong rules refuted with a
// counterexample, and what the prover does not model is left to the tests.
#include "ruletest/rule_prover.h"

#include <catch2/catch.hpp>

#include "dsl/lower.h"
#include "tests/dsl/rules_testing.h"

using namespace graft;
using ruletest::ProofVerdict;

namespace {

/// The proof of the one rule in `text`.
ruletest::ProofResult prove(const std::string& text) {
  testing::LoadedRules loaded = testing::load_rules(text);
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<RuleSet> rules = dsl::lower(*loaded.set, *loaded.sources, diags);
  REQUIRE(rules.has_value());
  REQUIRE(rules->rules.size() == 1);
  return ruletest::prove_rule(rules->rules[0]);
}

std::string rule(const std::string& pattern, const std::string& replacement,
                 const std::string& where = "") {
  return "rule r { pattern(x, y) { return " + pattern + " } " + where + " replacement { return " +
         replacement + " } }";
}

}  // namespace

TEST_CASE("the prover proves identities exact in float32", "[ruletest][prover]") {
  for (auto [p, r] : std::vector<std::pair<std::string, std::string>>{
           {"relu(relu(x)) + y * 0.0 + y * 0.0 - y * 0.0 - y * 0.0", "relu(x) + y * 0.0 - y * 0.0"},
           {"-(-x) + y", "x + y"},
           {"x * 1.0 + y", "x + y"},
           {"x * hardtanh(x + 3.0, min_val=0.0, max_val=6.0) / 6.0 + y", "hardswish(x) + y"},
           {"(contiguous | clone)(x) + y", "x + y"},
           {"dropout(x, p=0.0) + y", "x + y"},
           {"pow(x, 2.0) + y", "x * x + y"},
           {"maximum(x, y)", "maximum(x, y)"}}) {
    INFO(p << " -> " << r);
    ruletest::ProofResult proof = prove(rule(p, r));
    INFO(proof.detail);
    CHECK(proof.verdict == ProofVerdict::kProved);
  }
}

TEST_CASE("the prover refutes rules wrong at zeros, infinities or NaN, with the values",
          "[ruletest][prover]") {
  // Over the reals: x / x is not 1 at x = 0 (the reals' x / 0 is left open).
  ruletest::ProofResult div_self = prove(rule("x / x + y", "1.0 + y"));
  CHECK(div_self.verdict == ProofVerdict::kRefuted);
  CHECK_THAT(div_self.detail, Catch::StartsWith("over the reals, ") && Catch::Contains("x = 0"));
  // Right over the reals, wrong in float32: inf * 0 is NaN.
  ruletest::ProofResult times_zero = prove(rule("x * 0.0 + y", "y * 1.0"));
  CHECK(times_zero.verdict == ProofVerdict::kRefuted);
  CHECK_THAT(times_zero.detail, Catch::StartsWith("in float32, ") && Catch::Contains("nan"));
  // Wrong past a threshold: relu6 is not relu above 6.
  ruletest::ProofResult relu6 = prove(rule("relu6(x) + y", "relu(x) + y"));
  CHECK(relu6.verdict == ProofVerdict::kRefuted);
  // An attribute the pattern leaves open may have any value: add's alpha.
  ruletest::ProofResult alpha = prove(rule("add(x, y)", "x - (-y)"));
  CHECK(alpha.verdict == ProofVerdict::kRefuted);
  CHECK_THAT(alpha.detail, Catch::Contains("add.alpha"));
}

TEST_CASE("the prover honours where conditions on variables", "[ruletest][prover]") {
  // relu(clamp(x, lo, hi)) is clamp(x, lo, hi) when 0 <= lo <= hi (hi < 0 <= lo gives hi).
  const std::string p = "relu(clamp(x, min=$lo, max=$hi)) + y";
  const std::string r = "clamp(x, min=$lo, max=$hi) + y";
  CHECK(prove(rule(p, r, "where $lo >= 0, $hi >= $lo")).verdict == ProofVerdict::kProved);
  CHECK(prove(rule(p, r, "where $lo >= 0")).verdict == ProofVerdict::kRefuted);
  CHECK(prove(rule(p, r)).verdict == ProofVerdict::kRefuted);
}

TEST_CASE("rules the prover does not model are left to the tests, with the reason",
          "[ruletest][prover]") {
  ruletest::ProofResult conv = prove(
      "rule r { pattern(x, w) { return relu(relu(conv2d(x, w))) } replacement { return relu(conv2d(x, w)) } }");
  CHECK(conv.verdict == ProofVerdict::kOutside);
  CHECK(conv.detail == "'conv2d' is not an elementwise formula");
  // exp(log(x)) is x only where log is defined: with log left open, nothing is claimed.
  ruletest::ProofResult exp_log = prove(rule("exp(log(x)) + y", "x + y"));
  CHECK(exp_log.verdict == ProofVerdict::kOutside);
  // x * sigmoid(x) is silu(x) over the reals (exp is positive); float32 rounds differently.
  ruletest::ProofResult silu = prove(rule("x * sigmoid(x) + y", "silu(x) + y"));
  CHECK(silu.verdict == ProofVerdict::kProvedOverReals);
}
