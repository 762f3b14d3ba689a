// Special-value inputs (see special_inputs.h).
#include "runtime/special_inputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace graft::runtime {

std::vector<float> special_value_pool(const std::vector<float>& extra, bool non_finite) {
  // Magnitudes far from the usual too: 1e12, past where exp overflows and softmax underflows
  // even after a scale of 1e-3, yet whose squares and cubes are finite (a hand-written
  // layer norm or GELU does not overflow where the fused op would not), and 1e-20.
  std::vector<float> pool = {0.0f, -0.0f, 1.0f,   -1.0f,   0.5f,    -0.5f,
                             1e4f, -1e4f, 1e12f, -1e12f, 1e-20f, -1e-20f};
  auto add = [&](float v) {
    // Bitwise, so that 0 and -0 are both kept.
    auto same = [&](float p) { return std::signbit(p) == std::signbit(v) && p == v; };
    if (std::isfinite(v) && std::none_of(pool.begin(), pool.end(), same)) pool.push_back(v);
  };
  for (float v : extra) {
    for (float s : {v, -v}) {
      add(s);
      add(std::nextafter(s, -std::numeric_limits<float>::infinity()));
      add(std::nextafter(s, std::numeric_limits<float>::infinity()));
    }
  }
  if (non_finite) {
    pool.push_back(std::numeric_limits<float>::infinity());
    pool.push_back(-std::numeric_limits<float>::infinity());
    pool.push_back(std::numeric_limits<float>::quiet_NaN());
  }
  return pool;
}

eval::Tensor special_tensor(const Shape& shape, uint64_t seed, const std::vector<float>& pool) {
  eval::Tensor t = eval::Tensor::zeros(DType::kFloat32, shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::uniform_int_distribution<size_t> pick(0, pool.empty() ? 0 : pool.size() - 1);
  float* p = t.f32();
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    p[i] = pool.empty() || (rng() & 1) ? uniform(rng) : pool[pick(rng)];
  }
  // Each special value at least once, as far as half the tensor has room, from the end of
  // the pool (NaN and the infinities, then the extra values): on a small tensor, chance alone
  // would often leave out the one value that exposes a rule.
  if (n > 0) {
    std::uniform_int_distribution<int64_t> where(0, n - 1);
    const size_t placed = std::min(pool.size(), static_cast<size_t>(std::max<int64_t>(n / 2, 1)));
    for (size_t k = 0; k < placed; ++k) p[where(rng)] = pool[pool.size() - 1 - k];
  }
  return t;
}

}  // namespace graft::runtime
