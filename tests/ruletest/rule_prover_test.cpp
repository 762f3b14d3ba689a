// The prover of the algebraic fragment: sound identities are proved (over the reals and in
// float32, or over the reals only where float32 rounding differs), wrong rules refuted with a
// counterexample, and what the prover does not model, or does not decide in time, is left to
// the tests.
#include "ruletest/rule_prover.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "dsl/lower.h"
#include "tests/dsl/rules_testing.h"

using namespace graft;
using ruletest::ProofVerdict;

namespace {

/// Time enough for every proof below on a loaded machine: a verdict must not depend on the load.
constexpr ruletest::ProveOptions kPatient{.timeout_seconds = 600};

/// The proof of the one rule in `text`.
ruletest::ProofResult prove(const std::string& text,
                            const ruletest::ProveOptions& options = kPatient) {
  testing::LoadedRules loaded = testing::load_rules(text);
  INFO(loaded.diagnostics);
  REQUIRE(loaded.set.has_value());
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<RuleSet> rules = dsl::lower(*loaded.set, *loaded.sources, diags);
  REQUIRE(rules.has_value());
  REQUIRE(rules->rules.size() == 1);
  return ruletest::prove_rule(rules->rules[0], options);
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
  // conv2d is an uninterpreted function of its operands and attributes: the pattern's stride
  // and padding are open, the replacement's the defaults, so nothing is claimed.
  CHECK(conv.verdict == ProofVerdict::kOutside);
  CHECK_THAT(conv.detail, Catch::Contains("not proved over the reals with conv2d"));
  // With the attributes carried over, relu(relu(c)) is relu(c) whatever conv2d computes.
  ruletest::ProofResult conv_bound = prove(
      "rule r { pattern(x, w) { return relu(relu(conv2d(x, w, stride=$s, padding=$p, "
      "dilation=$d, groups=$g))) } replacement { return relu(conv2d(x, w, stride=$s, "
      "padding=$p, dilation=$d, groups=$g)) } }");
  INFO(conv_bound.detail);
  CHECK(conv_bound.verdict == ProofVerdict::kProved);
  // An op without a formula on one side only is not looked at further.
  ruletest::ProofResult one_side = prove(
      "rule r { pattern(x) { return softmax(x, -1) } replacement { return relu(x) } }");
  CHECK(one_side.verdict == ProofVerdict::kOutside);
  CHECK(one_side.detail == "'softmax' on one side only");
  // exp(log(x)) is x only where log is defined: with log left open, nothing is claimed.
  ruletest::ProofResult exp_log = prove(rule("exp(log(x)) + y", "x + y"));
  CHECK(exp_log.verdict == ProofVerdict::kOutside);
  // x * sigmoid(x) is silu(x) over the reals (exp is positive); float32 rounds differently.
  ruletest::ProofResult silu = prove(rule("x * sigmoid(x) + y", "silu(x) + y"));
  CHECK(silu.verdict == ProofVerdict::kProvedOverReals);
}

TEST_CASE("the prover tells the rounded divisions apart", "[ruletest][prover]") {
  // Over the reals each is its own uninterpreted function; in float32 trunc(-1 / 2) is -0 and
  // floor(-1 / 2) is -1, a difference without an inf or NaN, so the tests decide (whether the
  // search for one with an inf or NaN ends in time or not).
  ruletest::ProofResult trunc_floor =
      prove(rule("div(x, y, rounding_mode=\"trunc\")", "div(x, y, rounding_mode=\"floor\")"),
            ruletest::ProveOptions{.timeout_seconds = 3});
  CHECK(trunc_floor.verdict == ProofVerdict::kOutside);
  CHECK_THAT(trunc_floor.detail, Catch::Contains("div_floor, div_trunc left uninterpreted"));
  CHECK(prove(rule("div(x, y, rounding_mode=\"floor\")", "div(x, y, rounding_mode=\"floor\")"))
            .verdict == ProofVerdict::kProved);
}

TEST_CASE("the prover refutes in float32 what it leaves open over the reals only for sqrt",
          "[ruletest][prover]") {
  // sqrt(x * x) is |x| over the reals, but x * x overflows in float32 from 1.9e19 on.
  ruletest::ProofResult square_root = prove(rule("sqrt(x * x) + y", "abs(x) + y"));
  CHECK(square_root.verdict == ProofVerdict::kRefuted);
  CHECK_THAT(square_root.detail, Catch::StartsWith("in float32, ") && Catch::Contains("inf"));
  // sqrt(x) is never below 0 in float32 (sqrt(-0) is -0, sqrt(-1) NaN), but an uninterpreted
  // sqrt may be: equal in float32, not proved over the reals.
  ruletest::ProofResult abs_sqrt =
      prove("rule r { pattern(x) { return abs(sqrt(x)) } replacement { return sqrt(x) } }");
  CHECK(abs_sqrt.verdict == ProofVerdict::kOutside);
  CHECK(abs_sqrt.detail ==
        "not proved over the reals with sqrt left uninterpreted; equal in float32");
  // tanh has no float32 counterpart: the float32 query is not even asked.
  ruletest::ProofResult tanh = prove(rule("relu(tanh(x)) + y", "tanh(x) + y"));
  CHECK(tanh.verdict == ProofVerdict::kOutside);
  CHECK(tanh.detail == "not proved over the reals with tanh left uninterpreted");
}

TEST_CASE("attributes and $ scalars are finite in the float32 proof, tensors' elements are not",
          "[ruletest][prover]") {
  // add's open alpha times 0 is 0 for every number alpha; a NaN or inf alpha would refute it.
  ruletest::ProofResult alpha = prove(rule("add(x, y * 0.0)", "x + y * 0.0"));
  INFO(alpha.detail);
  CHECK(alpha.verdict == ProofVerdict::kProved);
  ruletest::ProofResult scalar = prove(rule("x + y * 0.0 * $c", "x + y * 0.0"));
  INFO(scalar.detail);
  CHECK(scalar.verdict == ProofVerdict::kProved);
  // y itself still ranges over inf and NaN.
  ruletest::ProofResult element = prove(rule("x + y * 0.0 * $c", "x"));
  CHECK(element.verdict == ProofVerdict::kRefuted);
  CHECK_THAT(element.detail, Catch::StartsWith("in float32, "));
}

TEST_CASE("the prover stops at the rule's time and says the proof timed out",
          "[ruletest][prover]") {
  // leaky_relu as relu(x) - relu(-x) * s is right for every finite slope, over the reals at
  // once; in float32 the product of two variables takes the solver far longer than 0.5 s.
  const std::string leaky =
      "rule r { pattern(x) { return leaky_relu(x, negative_slope=$s) } "
      "replacement { return relu(x) - relu(-x) * $s } }";
  ruletest::ProveOptions options;
  options.timeout_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  ruletest::ProofResult proof = prove(leaky, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(proof.verdict == ProofVerdict::kProvedOverReals);
  CHECK(proof.timed_out);
  CHECK(proof.detail == "the float32 proof timed out after 0.5 s");
  CHECK(seconds < 5);
}

TEST_CASE("the prover proves layout rules on tensors of any shape", "[ruletest][prover]") {
  for (const std::string& text : {
           // Permutes by literal lists fix the rank; the other ranks do not match.
           std::string("rule r { pattern(x) { return permute(permute(x, [0, 2, 3, 1]), [0, 3, 1, 2]) } "
                       "replacement { return x } }"),
           // A reshape keeps the row-major order, whatever the sizes in between.
           std::string("rule r { pattern(x) { y = reshape(x, shape=_) return reshape(y, $b) } "
                       "replacement { return reshape(x, $b) } }"),
           std::string("rule r { pattern(x) { y = reshape(x, shape=_) return y } "
                       "where shape(y) == shape(x) replacement { return x } }"),
           // Dims counted from the end under a rank condition; softmax is uninterpreted.
           std::string("rule r { pattern(k) { return transpose(k, $i, $j) } where rank(k) == 4, "
                       "$i in {2, 3}, $j in {2, 3}, $i != $j replacement { return transpose(k, -2, -1) } }"),
           std::string("rule r { pattern(x) { return softmax(x, 3) } where rank(x) == 4 "
                       "replacement { return softmax(x, -1) } }"),
           // The keys' permute of attention, inside a matmul.
           std::string("rule r { pattern(q, k) { return matmul(q, permute(k, [0, 2, 3, 1])) } "
                       "replacement { return matmul(q, transpose(permute(k, [0, 2, 1, 3]), -2, -1)) } }"),
           // linear is matmul(x, w.T) + b by definition.
           std::string("rule r { pattern(x, w, b) { y = matmul(x, w) return y + b } "
                       "where rank(w) == 2, rank(b) == 1, rank(x) >= 2 "
                       "replacement { return linear(x, permute(w, [1, 0]), b) } }"),
           // flatten of an input whose rank a condition fixes.
           std::string("rule r { pattern(x) { return reshape(x, [-1]) } where rank(x) == 3 "
                       "replacement { return flatten(x, 0) } }"),
           // A list variable's lists are tried one by one.
           std::string("rule r { pattern(x) { return permute(permute(x, $p), $p) } "
                       "where $p in {[1, 0], [0, 2, 1], [0, 1, 3, 2]} replacement { return x } }"),
           // Selection with a bool mask that does not enlarge the scores.
           std::string("rule r { pattern(keep, s) { w = where(keep, s, $fill) return w } "
                       "where shape(w) == shape(s), dtype(keep) == bool "
                       "replacement { return masked_fill(s, logical_not(keep), $fill) } }")}) {
    INFO(text);
    ruletest::ProofResult proof = prove(text);
    INFO(proof.detail);
    CHECK(proof.verdict == ProofVerdict::kProved);
    CHECK(proof.scope.empty());
  }
  // An elementwise op commutes with a permute: relu(x) has x's shape, so x's rank gives it.
  ruletest::ProofResult relu_permute = prove(
      "rule r { pattern(x) { return permute(relu(x), [0, 2, 3, 1]) } "
      "replacement { return relu(permute(x, [0, 2, 3, 1])) } }");
  INFO(relu_permute.detail);
  CHECK(relu_permute.verdict == ProofVerdict::kProved);
  // transpose with dims bound to variables is tried at each rank up to a bound, which it says.
  ruletest::ProofResult transposes = prove(
      "rule r { pattern(x) { return transpose(transpose(x, $a, $b), $b, $a) } "
      "replacement { return x } }");
  CHECK(transposes.verdict == ProofVerdict::kProved);
  CHECK(transposes.scope == "for ranks up to 6 of x");
}

TEST_CASE("the prover refutes wrong layout rules, with the sizes and the index",
          "[ruletest][prover]") {
  // The same permute twice is not a round trip.
  ruletest::ProofResult twice = prove(
      "rule r { pattern(x) { return permute(permute(x, [0, 2, 3, 1]), [0, 2, 3, 1]) } "
      "replacement { return x } }");
  CHECK(twice.verdict == ProofVerdict::kRefuted);
  CHECK_THAT(twice.detail, Catch::Contains("x.size(1) = ") && Catch::Contains("out[0] = "));
  // Transposing back by another pair of dims.
  ruletest::ProofResult other_dims = prove(
      "rule r { pattern(x) { return transpose(transpose(x, $a, $b), $a, $c) } "
      "replacement { return x } }");
  CHECK(other_dims.verdict == ProofVerdict::kRefuted);
}

TEST_CASE("the prover claims nothing where shapes may differ", "[ruletest][prover]") {
  for (const std::string& text : {
           // Right element by element, but y may broadcast x to a larger shape.
           std::string("rule r { pattern(x, y) { return where(eq(y, y), x, x) } "
                       "replacement { return x } }"),
           // Without the shape condition the mask may enlarge the scores.
           std::string("rule r { pattern(keep, s) { return where(keep, s, $fill) } "
                       "where dtype(keep) == bool "
                       "replacement { return masked_fill(s, logical_not(keep), $fill) } }"),
           // A reshape to other sizes, and softmax over another dim (an uninterpreted op).
           std::string("rule r { pattern(x) { return reshape(x, $b) } replacement { return x } }"),
           std::string("rule r { pattern(x) { return softmax(x, 2) } where rank(x) == 4 "
                       "replacement { return softmax(x, -1) } }")}) {
    INFO(text);
    ruletest::ProofResult proof = prove(text);
    INFO(proof.detail);
    CHECK(proof.verdict == ProofVerdict::kOutside);
  }
  // Broadcasting is commutative, associative and idempotent: these shapes agree.
  for (auto [p, r] : std::vector<std::pair<std::string, std::string>>{
           {"add(x, y)", "add(y, x)"},
           {"(x + y) * y", "x * y + y * y"},
           {"where(gt(x, 0.0), x, y)", "where(logical_not(gt(x, 0.0)), y, x)"}}) {
    INFO(p << " -> " << r);
    ruletest::ProofResult proof = prove(rule(p, r));
    INFO(proof.detail);
    CHECK(proof.verdict != ProofVerdict::kOutside);
  }
}
