// Inputs for the special-values trials of equivalence checking: uniform values mixed with
// the values where ops and rules change behaviour (zeros of both signs, thresholds, a rule's
// own constants and their float neighbours, large magnitudes, and ±inf and NaN), so that a
// rule that is only right for ordinary inputs (`x * 0 → 0`, `x / x → 1`) is caught.
#pragma once

#include <cstdint>
#include <vector>

#include "eval/tensor.h"

namespace graft::runtime {

/// The pool a special trial draws from: 0, -0, ±1, ±0.5, ±1e4, then each of `extra` with its
/// negation and both float neighbours, then ±inf and NaN when `non_finite`.
std::vector<float> special_value_pool(const std::vector<float>& extra, bool non_finite);

/// A float32 tensor of `shape` whose elements are uniform in [-1, 1) or, one in two, drawn from
/// `pool`, with each value of the pool present as far as half the tensor has room (the pool's
/// last values first); reproducible for a given seed.
eval::Tensor special_tensor(const Shape& shape, uint64_t seed, const std::vector<float>& pool);

}  // namespace graft::runtime
