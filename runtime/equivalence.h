// Numerical equivalence of two graphs: compile both on the runtime, run them on the same
// random inputs and compare every output within numpy.allclose tolerances. Rule tests use it to
// check that a rewrite kept what a graph computes (docs/testing-rules.md); `rewrite verify`
// also has the inputs of a failing trial simplified into a counterexample.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"
#include "eval/tensor.h"

namespace graft::runtime {

struct EquivalenceOptions {
  double rtol = 1e-4;  // |actual - expected| <= atol + rtol * |expected|, element-wise
  double atol = 1e-5;
  int trials = 1;     // runs, each on fresh random inputs
  uint64_t seed = 0;  // the inputs of trial t, input i come from seed, t and i
  /// Trial t draws its inputs uniform in [-s, s) for s = input_scales[t % size]. Past 1, the
  /// inputs cross the thresholds ops have (relu6's 6, hardswish's ±3, clamp bounds), and the
  /// absolute tolerance of that trial is atol times the output's largest magnitude (at least
  /// 1): rounding grows with the values, and an element that cancels to near zero carries it.
  /// float16 and bfloat16 inputs stay within ±8 (their special values too, but for ±inf and
  /// NaN), and their outputs are compared with rtol and atol of at least 4 units of their
  /// precision (2^-8 for float16, 2^-5 for bfloat16), widened per element by how far the graph
  /// before the rewrite moves when its half results are perturbed by two units; a NaN there
  /// matches an infinity (a value underflowed to 0 meets it in one graph, not in the other).
  std::vector<float> input_scales = {1};
  /// Trials after `trials` whose inputs mix uniform values with special ones: exact zeros of
  /// both signs, ±1, ±0.5, large magnitudes (±1e4) and `special_values` (the thresholds of the
  /// ops and the literals of a rule) with their float neighbours; the second such trial adds
  /// ±inf and NaN. 0, 1 or 2. A NaN output matches a NaN only, an infinity the same infinity.
  int special_trials = 0;
  std::vector<float> special_values;
  /// Every trial on the reference interpreter instead of the runtime: for graphs the runtime
  /// cannot compile (an op that computes in float32 only, given int64 tensors).
  bool on_reference = false;
  /// When the graphs differ: how many reruns may go into simplifying the first failing trial's
  /// inputs (EquivalenceReport::counterexample). 0 keeps them as drawn.
  int shrink_runs = 0;
};

/// Inputs on which the two graphs differ beyond tolerance, with what each gave.
struct Counterexample {
  std::vector<std::string> input_names;
  std::vector<eval::Tensor> inputs;
  std::vector<eval::Tensor> expected;  // the outputs of the graph before the rewrite
  std::vector<eval::Tensor> actual;    // and after
  /// The element that differs most on these inputs, as EquivalenceReport::message.
  std::string message;
  bool shrunk = false;  // some input was simplified
};

struct EquivalenceReport {
  bool equivalent = true;
  /// When not equivalent: the trial, output and element that differ most, both values, and
  /// the tolerance ("output 0 [0, 2, 3, 1]: expected 1.2345, got 0.7123 (max |diff| 0.52 > …)").
  std::string message;
  double max_abs_diff = 0;  // over every trial and output
  /// When not equivalent: the first failing trial's inputs, simplified as far as
  /// EquivalenceOptions::shrink_runs allowed while the graphs still differ: each element
  /// replaced by 0, 1 or -1, or rounded to fewer digits, where that keeps the failure.
  std::optional<Counterexample> counterexample;
};

/// Runs `expected` and `actual` (same inputs: count, order, shapes) on random inputs uniform in
/// [-1, 1), or the ranges of `options.input_scales`, then on special values (see
/// EquivalenceOptions::special_trials). Returns nullopt after reporting to `diags` when either graph cannot be compiled or
/// run (an op without a kernel, a non-float32 tensor) or their inputs or outputs differ in
/// number or shape; `what` names the graphs in those messages.
[[nodiscard]] std::optional<EquivalenceReport> check_equivalence(const Graph& expected,
                                                                 const Graph& actual,
                                                                 const EquivalenceOptions& options,
                                                                 DiagnosticEngine& diags,
                                                                 const std::string& what = "graph");

/// `counterexample` for a report: "inputs: x = [[0, 7]]", then the outputs expected and got,
/// one line each; a tensor of more than `full_elements` elements is summarised by its
/// elements other than 0.
std::string format_counterexample(const Counterexample& counterexample, int64_t full_elements = 32);

}  // namespace graft::runtime
