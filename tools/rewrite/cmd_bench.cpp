// `rewrite bench MODEL [--batch B] [--input NAME=FILE.npy]... [--dim SYM=N]... [--threads T]
// [--iters N] [--warmup W] [--json] [--profile]`:
// compiles once, runs warm-up iterations, then times N runs on random inputs and reports
// p50/p90 latency, throughput and peak RSS; --profile adds a per-node time table.
#include <CLI/CLI.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "engine/support/allocator.h"
#include "engine/support/terminal_text.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"
#include "tools/rewrite/run_util.h"

namespace graft::cli {
namespace {

constexpr int kMaxRuns = 1'000'000;  // --iters and --warmup

struct BenchFlags {
  std::string model;
  int64_t batch = 1;
  std::vector<std::string> inputs;
  std::vector<std::string> dims;
  uint64_t seed = 0;
  int threads = 0;
  int iters = 20;
  int warmup = 3;
  bool json = false;
  bool no_winograd = false;
  bool profile = false;
  PathPolicy paths;
};

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

/// Per-node time, summed over the profiled runs and sorted by total, largest first.
void print_profile(std::FILE* out, const runtime::Executable& exe,
                   const std::vector<double>& total_ms, int runs) {
  double sum = std::accumulate(total_ms.begin(), total_ms.end(), 0.0);
  std::vector<size_t> order(total_ms.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return total_ms[a] > total_ms[b]; });
  std::fprintf(out, "%10s %6s  %-32s %-16s %-10s %s\n", "ms/run", "%", "node", "op", "layout", "implementation");
  for (size_t s : order) {
    const runtime::StepInfo& step = exe.steps()[s];
    std::fprintf(out, "%10.3f %5.1f%%  %-32s %-16s %-10s %s%s\n", total_ms[s] / runs,
                sum > 0 ? 100.0 * total_ms[s] / sum : 0.0, escape_for_terminal(step.name).c_str(),
                step.op.c_str(),
                step.layout.c_str(), step.impl.c_str(), step.in_place ? " [in-place]" : "");
  }
}

int bench(const BenchFlags& flags) {
  DiagnosticEngine diags;
  auto fail = [&] {
    diags.render(std::cerr);
    return kExitInputRejected;
  };
  RunInputs spec;
  spec.batch = flags.batch;
  if (!parse_input_flags(flags.inputs, &spec.files, diags) ||
      !parse_dim_flags(flags.dims, &spec.dims, diags)) {
    return fail();
  }
  std::optional<Model> model = load_model(flags.model, diags, flags.paths);
  if (!model) return fail();
  runtime::set_num_threads(flags.threads);
  runtime::CompileOptions options;
  options.source_name = flags.model;
  options.winograd = !flags.no_winograd;
  auto files = bind_inputs(*model->graph, spec, options, diags);
  if (!files) return fail();
  keep_freed_memory_for_reuse();  // loaded: from here on kernels allocate and free per call
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<runtime::Executable> exe = runtime::compile(*model->graph, options, diags);
  if (!exe) return fail();
  double compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::vector<eval::Tensor> inputs =
      make_inputs(*exe, *files, flags.seed, index_bounds(*model->graph));
  std::vector<eval::Tensor> outputs;
  for (const runtime::TensorInfo& o : exe->outputs()) outputs.push_back(eval::Tensor::zeros(o.dtype, o.shape));
  for (int i = 0; i < flags.warmup; ++i) {
    if (!exe->run_into(inputs, outputs, diags)) return fail();
  }
  std::vector<double> times;
  for (int i = 0; i < flags.iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!exe->run_into(inputs, outputs, diags)) return fail();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double p50 = percentile(times, 0.5), p90 = percentile(times, 0.9);
  // Samples per second at the median latency (each run processes a whole batch).
  const double throughput = p50 > 0 ? static_cast<double>(flags.batch) * 1000.0 / p50 : 0.0;
  const int threads = flags.threads > 0 ? flags.threads : runtime::max_threads();
  if (flags.json) {
    nlohmann::json j = {{"model", flags.model},       {"batch", flags.batch},
                        {"threads", threads},         {"iters", flags.iters},
                        {"p50_ms", p50},              {"p90_ms", p90},
                        {"throughput_per_s", throughput}, {"peak_rss_mb", peak_rss_mb()},
                        {"compile_ms", compile_ms},
                        {"peak_activation_mb", static_cast<double>(exe->peak_activation_bytes()) / (1 << 20)},
                        {"weight_mb", static_cast<double>(exe->weight_bytes()) / (1 << 20)}};
    // JSON escapes control characters itself; invalid UTF-8 in the path would make dump() throw.
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::printf("%s: batch %lld, %d threads, %d runs (after %d warm-up)\n",
                escape_for_terminal(flags.model).c_str(),
                static_cast<long long>(flags.batch), threads, flags.iters, flags.warmup);
    std::printf("latency    p50 %.3f ms   p90 %.3f ms\n", p50, p90);
    std::printf("throughput %.1f samples/s\n", throughput);
    std::printf("memory     peak RSS %.1f MB; activations %.1f MB; weights %.1f MB\n", peak_rss_mb(),
                static_cast<double>(exe->peak_activation_bytes()) / (1 << 20),
                static_cast<double>(exe->weight_bytes()) / (1 << 20));
    std::printf("compile    %.1f ms, %zu steps\n", compile_ms, exe->steps().size());
  }
  if (flags.profile) {
    std::vector<double> total(exe->steps().size(), 0.0), step_ms;
    for (int i = 0; i < flags.iters; ++i) {
      if (!exe->run_into(inputs, outputs, diags, &step_ms)) return fail();
      for (size_t s = 0; s < step_ms.size(); ++s) total[s] += step_ms[s];
    }
    // With --json the table goes to stderr so stdout stays one JSON object.
    std::cout.flush();
    print_profile(flags.json ? stderr : stdout, *exe, total, flags.iters);
  }
  return kExitOk;
}

}  // namespace

Handler setup_bench(CLI::App& sub) {
  auto flags = std::make_shared<BenchFlags>();
  sub.add_option("model", flags->model, "model.json")->required();
  sub.add_option("--batch", flags->batch, "batch size (symbolic leading dims)")->check(CLI::PositiveNumber);
  sub.add_option("--input", flags->inputs, "NAME=FILE.npy: an input's value (repeatable)");
  sub.add_option("--dim", flags->dims, "SYMBOL=N: the size of a symbolic dim (repeatable)");
  sub.add_option("--seed", flags->seed, "seed of the random inputs (for inputs not given)");
  sub.add_option("--threads", flags->threads, "oneDNN threads; default all cores")
      ->check(CLI::Range(1, runtime::kMaxThreads));
  // Each timed run keeps its time: a million runs of the smallest model take minutes.
  sub.add_option("--iters", flags->iters, "timed runs")->check(CLI::Range(1, kMaxRuns));
  sub.add_option("--warmup", flags->warmup, "untimed runs first")->check(CLI::Range(0, kMaxRuns));
  sub.add_flag("--json", flags->json, "print one JSON object: p50_ms, p90_ms, throughput_per_s, peak_rss_mb, …");
  sub.add_flag("--profile", flags->profile, "print per-node times, most expensive first");
  sub.add_flag("--no-winograd", flags->no_winograd,
               "direct convolutions only (the algorithm PyTorch uses; slower, closer numerics)");
  add_allow_path_option(sub, flags->paths);
  return [flags]() { return bench(*flags); };
}

}  // namespace graft::cli
