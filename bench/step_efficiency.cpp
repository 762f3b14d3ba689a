// The shared part of the efficiency tools (bench/step_efficiency.h): compiling the model,
// standalone primitives and their three timings, the alternating rounds, the table and JSON.
#include "bench/step_efficiency.h"

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <new>

#include "engine/support/allocator.h"
#include "eval/concretize.h"
#include "runtime/dnnl_util.h"
#include "runtime/kernel.h"

namespace graft::bench {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void add_options(CLI::App& app, Flags& flags) {
  app.add_option("model", flags.model, "model.json (rewritten with rules/std.rules)")->required();
  app.add_option("--batch", flags.batch, "value of the batch symbol N")->check(CLI::PositiveNumber);
  app.add_option("--threads", flags.threads, "oneDNN threads")
      ->check(CLI::Range(1, graft::runtime::kMaxThreads));
  app.add_option("--iters", flags.iters, "timed runs (medians)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", flags.warmup, "untimed runs first")->check(CLI::NonNegativeNumber);
  app.add_flag("--json", flags.json, "print one JSON object instead of the table");
}

std::optional<CompiledModel> compile_model(const Flags& flags) {
  DiagnosticEngine diags;
  CompiledModel m;
  m.model = load_model(flags.model, diags);
  if (!m.model) {
    diags.render(std::cerr);
    return std::nullopt;
  }
  runtime::set_num_threads(flags.threads);
  runtime::CompileOptions options;
  options.source_name = flags.model;
  options.shapes.symbols["N"] = flags.batch;
  m.exe = runtime::compile(*m.model->graph, options, diags);
  m.typed = m.exe ? eval::concretize_graph(*m.model->graph, options.shapes, flags.model, diags) : nullptr;
  if (!m.exe || !m.typed) {
    diags.render(std::cerr);
    return std::nullopt;
  }
  for (const runtime::TensorInfo& i : m.exe->inputs()) m.inputs.push_back(eval::Tensor::random(i.shape, 1));
  for (const runtime::TensorInfo& o : m.exe->outputs()) {
    m.outputs.push_back(eval::Tensor::zeros(o.dtype, o.shape));
  }
  return m;
}

void Standalone::init(const dnnl::primitive_desc_base& pd, dnnl::primitive p, bool has_bias) {
  args = {{DNNL_ARG_SRC, dnnl::memory(pd.src_desc(0), eng)},
          {DNNL_ARG_WEIGHTS, dnnl::memory(pd.weights_desc(0), eng)},
          {DNNL_ARG_DST, dnnl::memory(pd.dst_desc(0), eng)}};
  if (has_bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(pd.weights_desc(1), eng));
  if (pd.scratchpad_desc().get_size() > 0) {
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(pd.scratchpad_desc(), eng));
  }
  // Small finite values everywhere (no denormals, no NaN: both could change the timing).
  for (auto& [arg, mem] : args) {
    float* data = static_cast<float*>(mem.get_data_handle());
    const size_t n = mem.get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) data[i] = 0.01f * static_cast<float>(i % 97) - 0.48f;
  }
  prim = std::move(p);
  impl = runtime::impl_name(pd);
}

void Standalone::time_in_sequence() {
  // The input just written by an earlier step and the destination recently used (a model's
  // memory plan hands a step the bytes of a value that died shortly before, or a residual to
  // add onto): a store to every cache line of both, untimed.
  for (int arg : {DNNL_ARG_SRC, DNNL_ARG_DST}) {
    const dnnl::memory& m = args.at(arg);
    auto* p = static_cast<volatile char*>(m.get_data_handle());
    const auto lines = static_cast<int64_t>((m.get_desc().get_size() + 63) / 64);
    // By all threads, in contiguous shares, as the step that wrote it would have: with two
    // threads, half of a tensor sits in each core's cache.
#pragma omp parallel for schedule(static)
    for (int64_t line = 0; line < lines; ++line) p[line * 64] = p[line * 64];
  }
  auto t = Clock::now();
  prim.execute(strm, args);
  strm.wait();
  seq_times.push_back(ms_since(t));
}

void Standalone::time_round(int iters, bool cold) {
  prim.execute(strm, args);
  strm.wait();
  for (int i = 0; i < iters; ++i) {
    if (cold) flush_cold();
    auto t = Clock::now();
    prim.execute(strm, args);
    strm.wait();
    (cold ? cold_times : times).push_back(ms_since(t));
  }
}

void Standalone::flush_cold() const {
  for (int arg : {DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_SCRATCHPAD}) {
    auto it = args.find(arg);
    if (it == args.end()) continue;
    const auto* p = static_cast<const char*>(it->second.get_data_handle());
    const size_t bytes = it->second.get_desc().get_size();
    for (size_t off = 0; off < bytes; off += 64) _mm_clflush(p + off);
  }
  _mm_mfence();
}

std::vector<std::byte> share_scratchpad(std::vector<StepRow>& rows) {
  size_t bytes = 0;
  for (StepRow& row : rows) {
    for (Standalone* s : {row.alone.get(), row.alt.get()}) {
      if (s == nullptr || s->args.count(DNNL_ARG_SCRATCHPAD) == 0) continue;
      bytes = std::max(bytes, s->args.at(DNNL_ARG_SCRATCHPAD).get_desc().get_size());
    }
  }
  std::vector<std::byte> storage(bytes + 64);
  void* scratchpad = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64);
  for (StepRow& row : rows) {
    for (Standalone* s : {row.alone.get(), row.alt.get()}) {
      if (s != nullptr && s->args.count(DNNL_ARG_SCRATCHPAD) != 0) {
        s->args.at(DNNL_ARG_SCRATCHPAD).set_data_handle(scratchpad);
      }
    }
  }
  return storage;
}

std::optional<ModelTimes> time_rounds(CompiledModel& m, std::vector<StepRow>& rows, const Flags& flags) {
  // Rounds alternate the model's runs with the standalone primitives' runs, so that a change
  // in the machine's speed during the measurement (a shared host) falls on both sides alike;
  // medians over all rounds. Within a round each standalone primitive runs back to back on its
  // own buffers (cache-hot, an upper bound).
  DiagnosticEngine diags;
  const size_t nsteps = m.exe->steps().size();
  ModelTimes out;
  out.per_step.resize(nsteps);
  std::vector<double> step_ms;
  for (int i = 0; i < flags.warmup; ++i) {
    if (!m.exe->run_into(m.inputs, m.outputs, diags, &step_ms)) {
      diags.render(std::cerr);
      return std::nullopt;
    }
  }
  constexpr int kRunsPerRound = 5;
  for (int done = 0; done < flags.iters; done += kRunsPerRound) {
    const int runs = std::min(kRunsPerRound, flags.iters - done);
    for (int i = 0; i < runs; ++i) {
      auto t = Clock::now();
      if (!m.exe->run_into(m.inputs, m.outputs, diags, &step_ms)) {
        diags.render(std::cerr);
        return std::nullopt;
      }
      out.run_ms.push_back(ms_since(t));
      for (size_t s = 0; s < nsteps; ++s) out.per_step[s].push_back(step_ms[s]);
    }
    for (int i = 0; i < runs; ++i) {
      for (StepRow& row : rows) row.alone->time_in_sequence();
    }
    for (StepRow& row : rows) {
      row.alone->time_round(runs, /*cold=*/false);
      row.alone->time_round(runs, /*cold=*/true);
      if (row.alt) row.alt->time_round(runs, /*cold=*/false);
    }
  }
  return out;
}

namespace {

/// The fields of one row, as the table prints them and the JSON names them.
nlohmann::json row_json(const runtime::StepInfo& step, const StepRow& row, double ms) {
  const double alone = median(row.alone->times);
  const double cold = median(row.alone->cold_times);
  const double seq = median(row.alone->seq_times);
  const double f = row.flops;
  nlohmann::json j = {{"node", step.name},
                      {"shape", row.shape},
                      {"graft_impl", step.impl},
                      {"graft_layout", step.layout},
                      {"graft_ms", ms},
                      {"gflops_graft", f / ms / 1e6},
                      {"standalone_impl", row.alone->impl},
                      {"standalone_ms", alone},
                      {"gflops_standalone", f / alone / 1e6},
                      {"ratio", alone / ms},
                      {"standalone_seq_ms", seq},
                      {"ratio_seq", seq / ms},
                      {"standalone_cold_ms", cold},
                      {"ratio_cold", cold / ms}};
  if (row.alt) j["standalone_" + row.alt_name + "_ms"] = median(row.alt->times);
  return j;
}

void print_row(const StepRow& row, const nlohmann::json& j) {
  std::string alt_note;
  if (row.alt) {
    const double alt = j["standalone_" + row.alt_name + "_ms"];
    alt_note = " (" + row.alt_name + " alone " + std::to_string(alt).substr(0, 6) + " ms)";
  }
  std::printf(
      "%-28s %-26s %-22.22s %8.3f %7.1f  %-22.22s %8.3f %7.1f %5.0f%% %8.3f %5.0f%% %9.3f "
      "%5.0f%%%s\n",
      j["node"].get<std::string>().c_str(), row.shape.c_str(), j["graft_impl"].get<std::string>().c_str(),
      j["graft_ms"].get<double>(), j["gflops_graft"].get<double>(), row.alone->impl.c_str(),
      j["standalone_ms"].get<double>(), j["gflops_standalone"].get<double>(), 100.0 * j["ratio"].get<double>(),
      j["standalone_seq_ms"].get<double>(), 100.0 * j["ratio_seq"].get<double>(),
      j["standalone_cold_ms"].get<double>(), 100.0 * j["ratio_cold"].get<double>(), alt_note.c_str());
}

}  // namespace

int report(const Flags& flags, const CompiledModel& m, const std::vector<StepRow>& rows,
           const ModelTimes& times, const Noun& noun, const nlohmann::json& extra,
           const std::string& extra_text) {
  nlohmann::json per_row = nlohmann::json::array();
  double flops = 0, graft_ms = 0, alone_ms = 0, cold_ms = 0, seq_ms = 0, all_steps_ms = 0;
  for (const std::vector<double>& step : times.per_step) all_steps_ms += median(step);
  if (!flags.json) {
    std::printf("%-28s %-26s %-22s %8s %7s  %-22s %8s %7s %6s %8s %6s %9s %6s\n", "node", "shape",
                "graft impl", "ms", "GFLOP/s", "standalone impl", "ms", "GFLOP/s", "ratio",
                "seq ms", "ratio", "cold ms", "ratio");
  }
  for (const StepRow& row : rows) {
    const double ms = median(times.per_step[row.step]);
    nlohmann::json j = row_json(m.exe->steps()[row.step], row, ms);
    flops += row.flops;
    graft_ms += ms;
    alone_ms += j["standalone_ms"].get<double>();
    cold_ms += j["standalone_cold_ms"].get<double>();
    seq_ms += j["standalone_seq_ms"].get<double>();
    if (!flags.json) print_row(row, j);
    per_row.push_back(std::move(j));
  }
  const double run_p50 = median(times.run_ms);
  const std::string& k = noun.key;
  nlohmann::json out = {{"model", flags.model},
                        {"batch", flags.batch},
                        {"threads", flags.threads},
                        {"iters", flags.iters},
                        {"run_p50_ms", run_p50},
                        {"steps_ms", all_steps_ms},
                        {k + "_count", per_row.size()},
                        {k + "_graft_ms", graft_ms},
                        {k + "_standalone_ms", alone_ms},
                        {"gflops_graft", flops / graft_ms / 1e6},
                        {"gflops_standalone", flops / alone_ms / 1e6},
                        {"ratio", alone_ms / graft_ms},
                        {k + "_standalone_seq_ms", seq_ms},
                        {"ratio_seq", seq_ms / graft_ms},
                        {k + "_standalone_cold_ms", cold_ms},
                        {"ratio_cold", cold_ms / graft_ms},
                        {"per_" + k, per_row}};
  out.update(extra);
  if (flags.json) {
    std::cout << out.dump() << "\n";
    return 0;
  }
  const char* plural = noun.plural.c_str();
  std::printf("\n%zu %s: graft %.2f ms (%.1f GFLOP/s), standalone %.2f ms (%.1f GFLOP/s): "
              "graft at %.0f%% of standalone\n",
              per_row.size(), plural, graft_ms, flops / graft_ms / 1e6, alone_ms, flops / alone_ms / 1e6,
              100.0 * alone_ms / graft_ms);
  std::printf("standalone %s run in the model's order, each input just written: %.2f ms; "
              "graft at %.0f%% of that\n",
              plural, seq_ms, 100.0 * seq_ms / graft_ms);
  std::printf(
      "standalone with its weights, bias and scratchpad flushed from the caches before each run: "
      "%.2f ms; graft at %.0f%% of that\n",
      cold_ms, 100.0 * cold_ms / graft_ms);
  std::printf("%s are %.0f%% of the step time (%.2f ms; a whole profiled run %.2f ms)\n", plural,
              100.0 * graft_ms / all_steps_ms, all_steps_ms, run_p50);
  std::fputs(extra_text.c_str(), stdout);
  return 0;
}

int run_guarded(const char* tool, const std::function<int()>& run) {
  install_out_of_memory_handler();
  try {
    return run();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", tool);
    return 1;
  }
}

}  // namespace graft::bench
