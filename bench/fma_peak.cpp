// fma_peak: the host's float32 FMA peak with T threads, the denominator of the "share of peak"
// that bench/transformer_bench.py reports. Each OpenMP thread runs a loop of fused
// multiply-adds on 12 independent accumulators (more than latency x throughput of the FMA
// pipes of current x86 cores, so the pipes never wait on a result), in AVX-512 registers when
// the CPU has AVX-512F, else AVX2 (--isa chooses). The accumulators are named variables: kept
// in an array, gcc spills them to the stack and the loop measures loads and stores instead.
// The best of --repeat timed runs, each --seconds long, is reported in GFLOP/s, each thread's
// work over its own CPU time (so that other processes on a shared host do not lower it), and
// by wall time beside. Never part of ctest.
#include <immintrin.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
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

// One FMA loop per instruction set, each with its own target attribute and intrinsics (a
// template cannot carry them: gcc will not inline the intrinsics into code of another target).
// The loop returns the sum of every lane, so that the compiler cannot drop it; the
// accumulators start at different values, as equal ones would let it compute one chain for
// all.
#define GRAFT_FMA_LOOP(NAME, TARGET, V, SET1, ADD, FMADD)                                    \
  __attribute__((target(TARGET))) float NAME(int64_t rounds, float seed) {                 \
    const V a = SET1(0.999999f), b = SET1(1e-7f), step = SET1(1e-3f);                      \
    V c0 = SET1(seed), c1 = ADD(c0, step), c2 = ADD(c1, step), c3 = ADD(c2, step);         \
    V c4 = ADD(c3, step), c5 = ADD(c4, step), c6 = ADD(c5, step), c7 = ADD(c6, step);      \
    V c8 = ADD(c7, step), c9 = ADD(c8, step), c10 = ADD(c9, step), c11 = ADD(c10, step);   \
    for (int64_t i = 0; i < rounds; ++i) {                                                 \
      c0 = FMADD(c0, a, b);                                                                \
      c1 = FMADD(c1, a, b);                                                                \
      c2 = FMADD(c2, a, b);                                                                \
      c3 = FMADD(c3, a, b);                                                                \
      c4 = FMADD(c4, a, b);                                                                \
      c5 = FMADD(c5, a, b);                                                                \
      c6 = FMADD(c6, a, b);                                                                \
      c7 = FMADD(c7, a, b);                                                                \
      c8 = FMADD(c8, a, b);                                                                \
      c9 = FMADD(c9, a, b);                                                                \
      c10 = FMADD(c10, a, b);                                                              \
      c11 = FMADD(c11, a, b);                                                              \
    }                                                                                      \
    V s = ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7)));               \
    return sum_lanes(ADD(s, ADD(ADD(c8, c9), ADD(c10, c11))));                             \
  }

GRAFT_FMA_LOOP(fma_loop_avx512, "avx512f", __m512, _mm512_set1_ps, _mm512_add_ps, _mm512_fmadd_ps)
GRAFT_FMA_LOOP(fma_loop_avx2, "avx2,fma", __m256, _mm256_set1_ps, _mm256_add_ps, _mm256_fmadd_ps)
#undef GRAFT_FMA_LOOP

struct Isa {
  const char* name;
  int lanes;
  float (*loop)(int64_t, float);
};

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Rates {
  double cpu = 0;   // the sum over threads of each one's GFLOP/s per second of its CPU time
  double wall = 0;  // the work of all threads over the slowest one's wall time
};

/// One run: every thread runs FMA chunks until `seconds` of wall time have passed, counting its
/// own rounds and CPU time. The CPU-time rate is what T cores of their own would reach: another
/// process taking turns on a core (a shared host) lowers the wall-time rate, not it.
Rates timed_run(const Isa& isa, int threads, double seconds, float* sink) {
  using Clock = std::chrono::steady_clock;
  const double flops_per_round = static_cast<double>(kAccumulators) * isa.lanes * 2;
  int64_t total_rounds = 0;
  double longest = 0, cpu_rate = 0;
  float sum = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total_rounds, sum, cpu_rate) reduction(max : longest)
  {
    const auto start = Clock::now();
    const double cpu_start = thread_cpu_seconds();
    int64_t rounds = 0;
    double elapsed = 0;
    do {
      sum += isa.loop(kChunk, 1.0f + 1e-3f * static_cast<float>(omp_get_thread_num()));
      rounds += kChunk;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    total_rounds += rounds;
    cpu_rate += static_cast<double>(rounds) * flops_per_round / (thread_cpu_seconds() - cpu_start) / 1e9;
    longest = elapsed;
  }
  *sink += sum;
  return {cpu_rate, static_cast<double>(total_rounds) * flops_per_round / longest / 1e9};
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, repeat = 5;
  double seconds = 0.2;
  bool json = false;
  std::string isa_name = "auto";
  CLI::App app{"the host's float32 FMA peak in GFLOP/s with T threads"};
  app.add_option("--threads", threads, "OpenMP threads, each running its own FMA loop")
      ->check(CLI::Range(1, 1024));
  app.add_option("--repeat", repeat, "timed runs (the best is reported)")->check(CLI::Range(1, 1000));
  app.add_option("--seconds", seconds, "length of a timed run")->check(CLI::Range(0.01, 60.0));
  app.add_option("--isa", isa_name, "auto (AVX-512 if the CPU has it), avx512 or avx2")
      ->check(CLI::IsMember({"auto", "avx512", "avx2"}));
  app.add_flag("--json", json, "print one JSON object");
  CLI11_PARSE(app, argc, argv);

  __builtin_cpu_init();
  const bool has_avx512 = __builtin_cpu_supports("avx512f");
  const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = isa_name == "avx512" || (isa_name == "auto" && has_avx512);
  if (avx512 ? !has_avx512 : !has_avx2) {
    std::fprintf(stderr, "fma_peak: error: the CPU has %s\n",
                 isa_name == "auto" ? "neither AVX-512F nor AVX2 with FMA"
                 : avx512           ? "no AVX-512F"
                                    : "no AVX2 with FMA");
    return 1;
  }
  const Isa isa = avx512 ? Isa{"avx512", 16, fma_loop_avx512} : Isa{"avx2", 8, fma_loop_avx2};
  float sink = 0;
  timed_run(isa, threads, seconds / 2, &sink);  // wakes the cores and the thread pool
  Rates best;
  for (int i = 0; i < repeat; ++i) {
    const Rates r = timed_run(isa, threads, seconds, &sink);
    best = {std::max(best.cpu, r.cpu), std::max(best.wall, r.wall)};
  }
  if (json) {
    std::cout << nlohmann::json{{"threads", threads},          {"isa", isa.name},
                                {"gflops", best.cpu},          {"gflops_per_thread", best.cpu / threads},
                                {"gflops_wall", best.wall},    {"checksum", sink}}
                     .dump()
              << "\n";
  } else {
    std::printf("%s, %d threads: %.1f GFLOP/s (%.1f a thread; %.1f by wall time)\n", isa.name, threads,
                best.cpu, best.cpu / threads, best.wall);
  }
  return 0;
}
