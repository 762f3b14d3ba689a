// fma_peak: the host's float32 FMA peak with T threads, the denominator of the "share of peak"
// that bench/transformer_bench.py reports. Each OpenMP thread runs a loop of fused
// multiply-adds on 12 independent accumulators (more than latency x throughput of the FMA
// pipes of current x86 cores, so the pipes never wait on a result), in AVX-512 registers when
// the CPU has AVX-512F, else AVX2. The accumulators are named variables: kept in an array,
// gcc spills them to the stack and the loop measures loads and stores instead. The best of
// --repeat timed runs, each --seconds long, is reported in GFLOP/s. Never part of ctest.
#include <immintrin.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

constexpr int kAccumulators = 12;
constexpr int64_t kChunk = 1 << 20;  // FMA rounds between clock reads

// Not _mm512_reduce_add_ps: gcc 12 warns about its undefined upper halves (-Wuninitialized).
template <typename Vector>
float sum_lanes(Vector v) {
  alignas(64) float lanes[sizeof(Vector) / sizeof(float)];
  std::memcpy(lanes, &v, sizeof v);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

// The loops return the sum of every lane, so that the compiler cannot drop them.
__attribute__((target("avx512f"))) float fma_loop_avx512(int64_t rounds, float seed) {
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  // Different starting values: equal ones would let the compiler compute one chain for all.
  const __m512 step = _mm512_set1_ps(1e-3f);
  __m512 c0 = _mm512_set1_ps(seed), c1 = _mm512_add_ps(c0, step), c2 = _mm512_add_ps(c1, step);
  __m512 c3 = _mm512_add_ps(c2, step), c4 = _mm512_add_ps(c3, step), c5 = _mm512_add_ps(c4, step);
  __m512 c6 = _mm512_add_ps(c5, step), c7 = _mm512_add_ps(c6, step), c8 = _mm512_add_ps(c7, step);
  __m512 c9 = _mm512_add_ps(c8, step), c10 = _mm512_add_ps(c9, step), c11 = _mm512_add_ps(c10, step);
  for (int64_t i = 0; i < rounds; ++i) {
    c0 = _mm512_fmadd_ps(c0, a, b);
    c1 = _mm512_fmadd_ps(c1, a, b);
    c2 = _mm512_fmadd_ps(c2, a, b);
    c3 = _mm512_fmadd_ps(c3, a, b);
    c4 = _mm512_fmadd_ps(c4, a, b);
    c5 = _mm512_fmadd_ps(c5, a, b);
    c6 = _mm512_fmadd_ps(c6, a, b);
    c7 = _mm512_fmadd_ps(c7, a, b);
    c8 = _mm512_fmadd_ps(c8, a, b);
    c9 = _mm512_fmadd_ps(c9, a, b);
    c10 = _mm512_fmadd_ps(c10, a, b);
    c11 = _mm512_fmadd_ps(c11, a, b);
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                           _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
  return sum_lanes(s);
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(int64_t rounds, float seed) {
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  // Different starting values: equal ones would let the compiler compute one chain for all.
  const __m256 step = _mm256_set1_ps(1e-3f);
  __m256 c0 = _mm256_set1_ps(seed), c1 = _mm256_add_ps(c0, step), c2 = _mm256_add_ps(c1, step);
  __m256 c3 = _mm256_add_ps(c2, step), c4 = _mm256_add_ps(c3, step), c5 = _mm256_add_ps(c4, step);
  __m256 c6 = _mm256_add_ps(c5, step), c7 = _mm256_add_ps(c6, step), c8 = _mm256_add_ps(c7, step);
  __m256 c9 = _mm256_add_ps(c8, step), c10 = _mm256_add_ps(c9, step), c11 = _mm256_add_ps(c10, step);
  for (int64_t i = 0; i < rounds; ++i) {
    c0 = _mm256_fmadd_ps(c0, a, b);
    c1 = _mm256_fmadd_ps(c1, a, b);
    c2 = _mm256_fmadd_ps(c2, a, b);
    c3 = _mm256_fmadd_ps(c3, a, b);
    c4 = _mm256_fmadd_ps(c4, a, b);
    c5 = _mm256_fmadd_ps(c5, a, b);
    c6 = _mm256_fmadd_ps(c6, a, b);
    c7 = _mm256_fmadd_ps(c7, a, b);
    c8 = _mm256_fmadd_ps(c8, a, b);
    c9 = _mm256_fmadd_ps(c9, a, b);
    c10 = _mm256_fmadd_ps(c10, a, b);
    c11 = _mm256_fmadd_ps(c11, a, b);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                           _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
  return sum_lanes(s);
}

struct Isa {
  const char* name;
  int lanes;
  float (*loop)(int64_t, float);
};

/// GFLOP/s of one run: every thread runs FMA chunks until `seconds` have passed (each counts its
/// own rounds); the work of all threads over the slowest thread's time.
double timed_run(const Isa& isa, int threads, double seconds, float* sink) {
  using Clock = std::chrono::steady_clock;
  int64_t total_rounds = 0;
  double longest = 0;
  float sum = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total_rounds, sum) reduction(max : longest)
  {
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      sum += isa.loop(kChunk, 1.0f + 1e-3f * static_cast<float>(omp_get_thread_num()));
      total_rounds += kChunk;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    longest = elapsed;
  }
  *sink += sum;
  return static_cast<double>(total_rounds) * kAccumulators * isa.lanes * 2 / longest / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, repeat = 5;
  double seconds = 0.2;
  bool json = false;
  CLI::App app{"the host's float32 FMA peak in GFLOP/s with T threads"};
  app.add_option("--threads", threads, "OpenMP threads, each running its own FMA loop")
      ->check(CLI::Range(1, 1024));
  app.add_option("--repeat", repeat, "timed runs (the best is reported)")->check(CLI::Range(1, 1000));
  app.add_option("--seconds", seconds, "length of a timed run")->check(CLI::Range(0.01, 60.0));
  app.add_flag("--json", json, "print one JSON object");
  CLI11_PARSE(app, argc, argv);

  __builtin_cpu_init();
  const Isa isa = __builtin_cpu_supports("avx512f") ? Isa{"avx512", 16, fma_loop_avx512}
                  : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                      ? Isa{"avx2", 8, fma_loop_avx2}
                      : Isa{nullptr, 0, nullptr};
  if (isa.loop == nullptr) {
    std::fprintf(stderr, "fma_peak: error: the CPU has neither AVX-512F nor AVX2 with FMA\n");
    return 1;
  }
  float sink = 0;
  timed_run(isa, threads, seconds / 2, &sink);  // wakes the cores and the thread pool
  double best = 0;
  for (int i = 0; i < repeat; ++i) best = std::max(best, timed_run(isa, threads, seconds, &sink));
  if (json) {
    std::cout << nlohmann::json{{"threads", threads}, {"isa", isa.name}, {"gflops", best},
                                {"gflops_per_thread", best / threads}, {"checksum", sink}}
                     .dump()
              << "\n";
  } else {
    std::printf("%s, %d threads: %.1f GFLOP/s (%.1f a thread)\n", isa.name, threads, best, best / threads);
  }
  return 0;
}
