// What conv_efficiency and matmul_efficiency share: compiling a model as `rewrite bench` does,
// standalone oneDNN primitives with their own buffers, the rounds that alternate the model's
// profiled runs with the standalone primitives' runs (in the model's order, cache-hot and with
// flushed weights), and the table and JSON that compare each step with its standalone twin.
// The cache states the three standalone timings stand for are described in conv_efficiency.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/io/model_json.h"
#include "eval/tensor.h"
#include "runtime/executable.h"

namespace graft::bench {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t);
double median(std::vector<double> v);

struct Flags {
  std::string model;
  int64_t batch = 1;
  int threads = 1;
  int iters = 30;
  int warmup = 5;
  bool json = false;
};

/// The options every efficiency tool takes: the model, --batch, --threads, --iters, --warmup,
/// --json.
void add_options(CLI::App& app, Flags& flags);

/// A model compiled as `rewrite bench` compiles it, its concretely typed graph (each step's
/// node, by name, with its shapes) and random inputs.
struct CompiledModel {
  std::optional<Model> model;
  std::unique_ptr<runtime::Executable> exe;
  std::unique_ptr<Graph> typed;
  std::vector<eval::Tensor> inputs, outputs;
};

/// Loads and compiles `flags.model` with the batch symbol N = flags.batch on flags.threads
/// threads; nullopt after rendering the diagnostics to stderr.
std::optional<CompiledModel> compile_model(const Flags& flags);

/// A standalone oneDNN primitive with its own buffers, built once and timed in rounds.
struct Standalone {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  std::string impl;
  std::vector<double> times;       // every timed run, over all rounds
  std::vector<double> cold_times;  // the same, each run after flush_cold()
  std::vector<double> seq_times;   // runs in model order, between the other standalone ones

  /// Allocates src, weights, dst (and bias when `has_bias`, and a user-managed scratchpad)
  /// as `pd` wants them, fills them with small finite values and sets `prim` and `impl`.
  void init(const dnnl::primitive_desc_base& pd, dnnl::primitive p, bool has_bias);
  /// One run as the step of a model would see it: input and destination stored to just
  /// before, weights and scratchpad as the primitives run before it left them.
  void time_in_sequence();
  /// One warm-up run, then `iters` timed runs into `times`, or with `cold` each after
  /// flush_cold() (untimed) into `cold_times`.
  void time_round(int iters, bool cold);
  /// Evicts the weights, bias and scratchpad from every cache level.
  void flush_cold() const;
};

/// One step of the model and its standalone counterparts.
struct StepRow {
  size_t step = 0;
  std::string shape;  // how the table describes the step
  double flops = 0;   // 2 * MACs
  std::unique_ptr<Standalone> alone;
  std::unique_ptr<Standalone> alt;  // optional: another algorithm, timed cache-hot only
  std::string alt_name;             // its name in the table and the JSON ("direct")
};

/// Gives every standalone primitive of `rows` one shared scratchpad, as graft's kernels share
/// one (a seq pass then finds what the previous primitive's scratchpad left in the caches).
/// Returns its storage, which must outlive the timing.
std::vector<std::byte> share_scratchpad(std::vector<StepRow>& rows);

/// Per-step times of the model's profiled runs and the whole runs' times.
struct ModelTimes {
  std::vector<std::vector<double>> per_step;
  std::vector<double> run_ms;
};

/// The warm-up, then rounds of five: the model's profiled runs, as many seq passes over all
/// standalone primitives in the model's order, then each one's hot and cold rounds (and its
/// alternative's hot round). nullopt after rendering a run's diagnostics.
std::optional<ModelTimes> time_rounds(CompiledModel& m, std::vector<StepRow>& rows, const Flags& flags);

/// How the report names what it compares: the JSON keys' prefix ("conv") and the plural in
/// the text ("convolutions").
struct Noun {
  std::string key;
  std::string plural;
};

/// Prints the table and summary (or, with flags.json, one JSON object, with `extra`'s fields
/// added to it; `extra_text` is printed after the summary). Returns the exit code.
int report(const Flags& flags, const CompiledModel& m, const std::vector<StepRow>& rows,
           const ModelTimes& times, const Noun& noun, const nlohmann::json& extra = nlohmann::json::object(),
           const std::string& extra_text = "");

/// main()'s tail for every efficiency tool: the out-of-memory handler, then `run`, an out of
/// memory reported as an error.
int run_guarded(const char* tool, const std::function<int()>& run);

}  // namespace graft::bench
