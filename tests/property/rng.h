// The property tests' random numbers: splitmix64, which gives the same numbers on every machine
// and standard library (<random>'s distributions are implementation-defined), so that a seed
// names one graph or rule set everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace graft::testing {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  /// Uniform in [0, n); 0 when n <= 1.
  int below(int n) { return n <= 1 ? 0 : static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return uniform(0, 1) < p; }
  /// An index into `weights`, each with probability proportional to its weight.
  int weighted(std::initializer_list<int> weights) {
    int total = 0;
    for (int w : weights) total += w;
    int r = below(total), index = 0;
    for (int w : weights) {
      if (r < w) return index;
      r -= w;
      ++index;
    }
    return index - 1;
  }
  template <typename T, size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(static_cast<int>(N))];
  }

 private:
  uint64_t state_;
};

}  // namespace graft::testing
