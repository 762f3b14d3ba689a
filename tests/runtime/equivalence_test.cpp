// check_equivalence: special-value trials catch rewrites that are wrong only at zeros,
// infinities and NaN, and a NaN expected value is compared like any other.
#include "runtime/equivalence.h"

#include <catch2/catch.hpp>

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
