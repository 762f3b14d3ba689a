// check_equivalence: special-value trials catch rewrites that are wrong only at zeros,
// infinities and NaN, and a NaN expected value is compared like any other; a failing trial's
// inputs are simplified into a counterexample.
#include "runtime/equivalence.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "engine/ops/op_registry.h"

using namespace graft;

namespace {

const OpSchema& op(const char* name) { return *OpRegistry::get().find(name); }

/// y = x * factor, with x float32[2, 8].
std::unique_ptr<Graph> times(double factor) {
  auto g = std::make_unique<Graph>();
  Node* x = g->add_placeholder("x", TensorType{DType::kFloat32, {2, 8}});
  Node* y = g->add_call(op("mul"), {Input::of(x), Input::of(Scalar{factor, false})},
                        Graph::default_attrs(op("mul")));
  g->set_output({Input::of(y)});
  return g;
}

/// y = zeros like x, with x float32[2, 8].
std::unique_ptr<Graph> zeros_like_input() {
  auto g = std::make_unique<Graph>();
  Node* x = g->add_placeholder("x", TensorType{DType::kFloat32, {2, 8}});
  std::vector<AttrValue> attrs = Graph::default_attrs(op("full_like"));
  attrs[static_cast<size_t>(op("full_like").attr_index("fill_value"))] = 0.0;
  Node* y = g->add_call(op("full_like"), {Input::of(x)}, attrs);
  g->set_output({Input::of(y)});
  return g;
}

/// `op_name`(x), with x float32[2, 3].
std::unique_ptr<Graph> unary(const char* op_name) {
  auto g = std::make_unique<Graph>();
  Node* x = g->add_placeholder("x", TensorType{DType::kFloat32, {2, 3}});
  Node* y = g->add_call(op(op_name), {Input::of(x)}, Graph::default_attrs(op(op_name)));
  g->set_output({Input::of(y)});
  return g;
}

}  // namespace

TEST_CASE("x * 0 and zeros agree on finite inputs and differ where x is infinite or NaN",
          "[runtime][equivalence]") {
  std::unique_ptr<Graph> product = times(0.0);
  std::unique_ptr<Graph> zeros = zeros_like_input();
  DiagnosticEngine diags;
  runtime::EquivalenceOptions options;
  options.trials = 3;
  options.input_scales = {1, 8, 64};
  std::optional<runtime::EquivalenceReport> report =
      runtime::check_equivalence(*product, *zeros, options, diags);
  INFO(diags.render());
  REQUIRE(report.has_value());
  CHECK(report->equivalent);

  options.special_trials = 1;  // zeros and thresholds, all finite: still equal
  report = runtime::check_equivalence(*product, *zeros, options, diags);
  REQUIRE(report.has_value());
  CHECK(report->equivalent);

  options.special_trials = 2;  // ±inf and NaN: inf * 0 is NaN
  report = runtime::check_equivalence(*product, *zeros, options, diags);
  REQUIRE(report.has_value());
  CHECK_FALSE(report->equivalent);
  CHECK_THAT(report->message, Catch::Contains("expected nan, got 0") &&
                                  Catch::Contains("inputs with special values, ±inf and NaN"));
}

TEST_CASE("a NaN expected output matches only a NaN", "[runtime][equivalence]") {
  // x * 1 and x * 1 agree everywhere, NaN included; x * 1 against x * 0 differs at the NaN
  // inputs too, where the expected NaN must not be waved through by its tolerance.
  DiagnosticEngine diags;
  runtime::EquivalenceOptions options;
  options.special_trials = 2;
  std::optional<runtime::EquivalenceReport> same =
      runtime::check_equivalence(*times(1.0), *times(1.0), options, diags);
  REQUIRE(same.has_value());
  CHECK(same->equivalent);
  std::optional<runtime::EquivalenceReport> differ =
      runtime::check_equivalence(*times(0.0), *zeros_like_input(), options, diags);
  REQUIRE(differ.has_value());
  CHECK_FALSE(differ->equivalent);
  CHECK(std::isinf(differ->max_abs_diff));
}

TEST_CASE("a failing trial's inputs shrink to one value past relu6's threshold and zeros",
          "[runtime][equivalence]") {
  DiagnosticEngine diags;
  runtime::EquivalenceOptions options;
  options.input_scales = {64};
  options.shrink_runs = 300;
  std::optional<runtime::EquivalenceReport> report =
      runtime::check_equivalence(*unary("relu6"), *unary("relu"), options, diags);
  INFO(diags.render());
  REQUIRE(report.has_value());
  REQUIRE_FALSE(report->equivalent);
  REQUIRE(report->counterexample.has_value());
  const runtime::Counterexample& cx = *report->counterexample;
  CHECK(cx.shrunk);
  REQUIRE(cx.inputs.size() == 1);
  // The smallest failing input: one element just past 6 (bisected to the integer 7), the
  // five others 0.
  std::vector<float> values(cx.inputs[0].f32(), cx.inputs[0].f32() + cx.inputs[0].numel());
  CHECK(std::count(values.begin(), values.end(), 0.0f) == 5);
  CHECK(std::count(values.begin(), values.end(), 7.0f) == 1);
  CHECK_THAT(runtime::format_counterexample(cx),
             Catch::Matches("inputs: x = \\[\\[[07], [07], [07]\\], \\[[07], [07], [07]\\]\\]\n"
                            "expected: \\[\\[[06], [06], [06]\\], \\[[06], [06], [06]\\]\\]\n"
                            "got: \\[\\[[07], [07], [07]\\], \\[[07], [07], [07]\\]\\]\n"));
}

TEST_CASE("a counterexample keeps the NaN that x * 0 → 0 fails on and prints it",
          "[runtime][equivalence]") {
  DiagnosticEngine diags;
  runtime::EquivalenceOptions options;
  options.special_trials = 2;
  options.shrink_runs = 300;
  std::optional<runtime::EquivalenceReport> report =
      runtime::check_equivalence(*times(0.0), *zeros_like_input(), options, diags);
  REQUIRE(report.has_value());
  REQUIRE(report->counterexample.has_value());
  const runtime::Counterexample& cx = *report->counterexample;
  // Every element but one non-finite value becomes 0: replacing that one loses the failure.
  int zeros = 0, non_finite = 0;
  for (int64_t i = 0; i < cx.inputs[0].numel(); ++i) {
    zeros += cx.inputs[0].f32()[i] == 0.0f;
    non_finite += !std::isfinite(cx.inputs[0].f32()[i]);
  }
  CHECK(zeros == 15);
  CHECK(non_finite == 1);
  const std::string text = runtime::format_counterexample(cx);
  CHECK_THAT(text, Catch::Contains("inputs: x = [[") &&
                       (Catch::Contains("nan") || Catch::Contains("inf")));
  CHECK_THAT(text, Catch::Contains("got: [[0, 0, 0"));
}

TEST_CASE("a large counterexample tensor is summarised by its elements other than 0",
          "[runtime][equivalence]") {
  runtime::Counterexample cx;
  cx.input_names = {"x"};
  eval::Tensor x = eval::Tensor::zeros(DType::kFloat32, {4, 10});
  x.f32()[13] = 7.5f;
  x.f32()[39] = -INFINITY;
  cx.inputs = {x};
  cx.expected = {eval::Tensor::zeros(DType::kFloat32, {4, 10})};
  cx.actual = {x};
  CHECK(runtime::format_counterexample(cx) ==
        "inputs: x = float32[4, 10], 0 but at [1, 3] 7.5, [3, 9] -inf\n"
        "expected: float32[4, 10] of zeros\n"
        "got: float32[4, 10], 0 but at [1, 3] 7.5, [3, 9] -inf\n");
}

TEST_CASE("without shrink runs the counterexample is the failing trial's inputs as drawn",
          "[runtime][equivalence]") {
  DiagnosticEngine diags;
  runtime::EquivalenceOptions options;
  options.input_scales = {64};
  std::optional<runtime::EquivalenceReport> report =
      runtime::check_equivalence(*unary("relu6"), *unary("relu"), options, diags);
  REQUIRE(report.has_value());
  REQUIRE(report->counterexample.has_value());
  CHECK_FALSE(report->counterexample->shrunk);
  CHECK(report->counterexample->message == report->message);
}
