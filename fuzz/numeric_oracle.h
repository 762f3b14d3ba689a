// How the fuzz targets that run graphs decide that two float32 results differ: a tolerance
// relative to the output's largest magnitude, overflowed values saturated, and the graphs
// excluded whose own outputs move beyond that tolerance when rounding is perturbed (they
// amplify rounding, so two correct implementations may disagree by any amount).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "eval/tensor.h"

namespace graft::fuzz {

/// Whether float32 `t` holds a NaN.
bool has_nan(const eval::Tensor& t);

/// Where `got` and `want` disagree beyond 1e-3 of the element or 1e-4 of the output's largest
/// finite magnitude (values of magnitude 2^127 or more count as overflowed, an infinity of
/// their sign): "element i: got x, want y", or nullopt when they agree.
std::optional<std::string> disagreement(const eval::Tensor& got, const eval::Tensor& want);

/// Whether the reference's outputs of `graph` on `inputs` disagree with `want` (its outputs
/// without noise) when every op's result is perturbed by a relative 2^-20 (eval::RoundingNoise,
/// two seeds): then the graph amplifies rounding, or the sign of a zero, beyond any tolerance.
bool ill_conditioned(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                     const std::vector<eval::Tensor>& want);

/// Whether a value whose square overflows float32 (|v| >= 2^64), or a NaN, reaches a
/// batch_norm or layer_norm: their statistics then overflow, and each implementation gives
/// something else (torch NaN, oneDNN 0, the reference, accumulating in double, the exact value).
bool normalizes_overflowing_values(const Graph& graph, const std::vector<eval::Tensor>& inputs);

}  // namespace graft::fuzz
