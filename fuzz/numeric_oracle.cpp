// The numeric oracle of the fuzz targets that run graphs (fuzz/numeric_oracle.h).
#include "fuzz/numeric_oracle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "eval/reference.h"

namespace graft::fuzz {

namespace {

/// `v`, or an infinity of its sign where its magnitude is 2^127 or more (half of float32's
/// range): where a result overflows depends on the order of accumulation, so that one
/// implementation's -inf is another's -3.4e38, and both have overflowed.
double saturated(float v) {
  return std::fabs(v) >= 0x1.0p127f ? std::copysign(std::numeric_limits<double>::infinity(), v)
                                    : v;
}

}  // namespace

bool has_nan(const eval::Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (std::isnan(t.f32()[i])) return true;
  }
  return false;
}

/// The scale term is the project's rule for comparing numbers: an element that cancels to near
/// zero in an output of magnitude 1e3 carries the absolute rounding error of its inputs, which
/// no per-element tolerance bounds.
std::optional<std::string> disagreement(const eval::Tensor& got, const eval::Tensor& want) {
  if (got.shape() != want.shape()) return "shapes differ";
  double scale = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    double v = std::fabs(saturated(want.f32()[i]));
    if (std::isfinite(v)) scale = std::max(scale, v);
  }
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (!eval::is_close(saturated(got.f32()[i]), saturated(want.f32()[i]), 1e-3,
                        1e-4 * std::max(scale, 1.0))) {
      return "element " + std::to_string(i) + ": got " + std::to_string(got.f32()[i]) +
             ", want " + std::to_string(want.f32()[i]);
    }
  }
  return std::nullopt;
}

/// A few float32 ulps of noise expose, for example, a matmul of layer_norm outputs that cancels
/// to noise which the next layer_norm scales back to 1.
bool ill_conditioned(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                     const std::vector<eval::Tensor>& want) {
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    DiagnosticEngine diags;
    std::optional<std::vector<eval::Tensor>> moved =
        eval::run_reference(graph, inputs, diags, eval::RoundingNoise{0x1.0p-20, seed});
    if (!moved || moved->size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (disagreement((*moved)[i], want[i])) return true;
    }
  }
  return false;
}

/// Runs the reference on a copy of the graph that returns the norms' inputs.
bool normalizes_overflowing_values(const Graph& graph, const std::vector<eval::Tensor>& inputs) {
  std::vector<Node*> mapping;
  std::unique_ptr<Graph> copy = graph.clone(&mapping);
  std::vector<Input> norm_inputs;
  for (Node* n : copy->nodes()) {
    if ((n->is_op("layer_norm") || n->is_op("batch_norm")) && n->input(0).is_node()) {
      norm_inputs.push_back(n->input(0));
    }
  }
  if (norm_inputs.empty()) return false;
  copy->set_output(norm_inputs);
  DiagnosticEngine diags;
  std::optional<std::vector<eval::Tensor>> values = eval::run_reference(*copy, inputs, diags);
  if (!values) return false;
  for (const eval::Tensor& t : *values) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (!(std::fabs(t.f32()[i]) < 0x1.0p64f)) return true;  // NaN too: it poisons the row
    }
  }
  return false;
}

}  // namespace graft::fuzz
