// conv_efficiency: how fast graft's convolutions run inside a model, compared with a
// standalone oneDNN 2.x convolution of the same shape. Loads a model (normally one rewritten
// with rules/std.rules, so its convolutions are conv2d_post with folded batch norm), compiles
// it as `rewrite bench` does, and for every conv2d / conv2d_post step creates a standalone
// convolution_forward with the same shape, post-op chain and algorithm, all memory descriptors
// format_tag::any (oneDNN's own layout choice), on its own buffers. The model's runs (every
// step timed) and the standalone convolutions' runs alternate in rounds of five; each side's
// figure is the median over all rounds. Prints a table and, with --json,
// one JSON object. bench/runtime_bench.py --conv runs it; it is never part of ctest.
//
// GFLOP/s count the direct algorithm's 2 * MACs also for Winograd layers (an "effective"
// rate), so the two algorithms compare on the same work. The standalone convolution reruns on
// the same buffers, so its input and weights are as cache-hot as they can be; inside a model
// the weights stream from memory and the input was just written by another step. That makes
// the standalone figure an upper bound, most visibly for small, memory-bound layers. To show how
// much of a gap is that, each standalone convolution is also timed with its weights, bias and
// scratchpad flushed from every cache level before each run, its input left hot: the same
// kernel with its weights coming from memory, as they do inside a model at batch 1, and with a
// scratchpad that the layers in between have evicted (a Winograd layer's is megabytes; like
// graft's kernels, the standalone one uses a scratchpad of its own, user-managed, so that it can
// be flushed).
//
// Neither loop is the cache state of a model run, which has the input just written by the
// previous step and the weights and scratchpad in whatever state the layers in between left
// them (evicted when the model's weights exceed the caches, as ResNet's do; still in L3 for a
// small model such as MobileNetV2). The third column ("seq") reproduces that with oneDNN alone:
// every standalone convolution, on its own buffers (one scratchpad shared by all, as graft's
// kernels share one and as oneDNN's library-managed scratchpad is shared too), runs once per
// pass in the model's order, its input and destination stored to just before by all threads
// (a model's input was just written by the previous step; its destination is bytes of the
// memory plan's arena used shortly before). Its ratio compares graft's convolutions with
// oneDNN's, each in the layout oneDNN prefers for it, under nearly the same cache conditions
// (the stores approximate where the producing step left each line): what graft's layout
// choices, memory plan and run loop cost.
#include <immintrin.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/io/model_json.h"
#include "engine/support/allocator.h"
#include "eval/concretize.h"
#include "runtime/dnnl_util.h"
#include "runtime/executable.h"
#include "runtime/kernels/activation.h"

namespace graft {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Flags {
  std::string model;
  int64_t batch = 1;
  int threads = 1;
  int iters = 30;
  int warmup = 5;
  bool json = false;
};

/// What a convolution node computes, read from its (concrete) node.
struct ConvShape {
  Shape x, w, y;
  int64_t groups = 1;
  std::vector<int64_t> stride, padding, dilation;
  bool has_bias = false, has_residual = false;
  std::vector<runtime::EltwiseStep> act, post_act;

  double flops() const {  // 2 * MACs of the direct algorithm
    return 2.0 * static_cast<double>(y[0] * y[1] * y[2] * y[3] * w[1] * w[2] * w[3]);
  }
  std::string describe() const {
    return std::to_string(x[1]) + "x" + std::to_string(x[2]) + "x" + std::to_string(x[3]) + " -> " +
           std::to_string(y[1]) + " k" + std::to_string(w[2]) + " s" + std::to_string(stride[0]) +
           (groups > 1 ? " g" + std::to_string(groups) : "");
  }
};

std::optional<ConvShape> read_conv(const Node& node) {
  ConvShape c;
  c.x = node.input(0).node->type()->shape;
  c.w = node.input(1).node->type()->shape;
  c.y = node.type()->shape;
  c.groups = std::get<int64_t>(node.attr("groups"));
  c.stride = std::get<std::vector<int64_t>>(node.attr("stride"));
  c.padding = std::get<std::vector<int64_t>>(node.attr("padding"));
  c.dilation = std::get<std::vector<int64_t>>(node.attr("dilation"));
  c.has_bias = node.inputs().size() > 2 && node.input(2).is_node();
  if (node.is_op("conv2d_post")) {
    c.has_residual = node.inputs().size() > 3 && node.input(3).is_node();
    auto steps = [&](const std::string& prefix) {
      return runtime::activation_steps(std::get<std::string>(node.attr(prefix + "activation")),
                                       std::get<double>(node.attr(prefix + "alpha")),
                                       std::get<double>(node.attr(prefix + "beta")));
    };
    auto act = steps(""), post = steps("post_");
    if (!act || !post) return std::nullopt;
    c.act = *act;
    c.post_act = *post;
  }
  return c;
}

/// A standalone oneDNN convolution with its own buffers, built once and timed in rounds.
struct Standalone {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::convolution_forward conv;
  std::unordered_map<int, dnnl::memory> args;
  std::string impl;
  std::vector<double> times;       // every timed run, over all rounds
  std::vector<double> cold_times;  // the same, each run after flush_cold()
  std::vector<double> seq_times;   // runs in model order, between the other standalone ones

  /// One run as the step of a model would see it: the input just written by an earlier step
  /// and the destination recently used (a model's memory plan hands a step the bytes of a value
  /// that died shortly before, or a residual to add onto) — a store to every cache line of
  /// both, untimed — and the weights and scratchpad in whatever cache state the other
  /// convolutions, run before it in the model's order, left them.
  void time_in_sequence() {
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
    conv.execute(strm, args);
    strm.wait();
    seq_times.push_back(ms_since(t));
  }

  /// One warm-up run (the buffers come back into the caches), then `iters` timed runs, into
  /// `times` — or, with `cold`, each after flush_cold() (untimed), into `cold_times`.
  void time_round(int iters, bool cold) {
    conv.execute(strm, args);
    strm.wait();
    for (int i = 0; i < iters; ++i) {
      if (cold) flush_cold();
      auto t = Clock::now();
      conv.execute(strm, args);
      strm.wait();
      (cold ? cold_times : times).push_back(ms_since(t));
    }
  }

  /// Evicts the weights, bias and scratchpad from every cache level.
  void flush_cold() const {
    for (int arg : {DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_SCRATCHPAD}) {
      auto it = args.find(arg);
      if (it == args.end()) continue;
      const auto* p = static_cast<const char*>(it->second.get_data_handle());
      const size_t bytes = it->second.get_desc().get_size();
      for (size_t off = 0; off < bytes; off += 64) _mm_clflush(p + off);
    }
    _mm_mfence();
  }
};

/// A standalone oneDNN convolution of shape `c` with algorithm `alg`, every memory descriptor
/// format_tag::any; nullptr if oneDNN has no such primitive.
std::unique_ptr<Standalone> make_standalone(const ConvShape& c, dnnl::algorithm alg) {
  using namespace dnnl;
  auto out = std::make_unique<Standalone>();
  engine& eng = out->eng;
  auto any = [](memory::dims d) {
    return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
  };
  memory::dims wd = c.groups == 1 ? memory::dims(c.w.begin(), c.w.end())
                                  : memory::dims{c.groups, c.w[0] / c.groups, c.w[1], c.w[2], c.w[3]};
  memory::dims strides(c.stride.begin(), c.stride.end());
  memory::dims dilates = {c.dilation[0] - 1, c.dilation[1] - 1};
  memory::dims pad(c.padding.begin(), c.padding.end());
  memory::desc src_md = any({c.x.begin(), c.x.end()}), dst_md = any({c.y.begin(), c.y.end()});
  auto desc = c.has_bias ? convolution_forward::desc(prop_kind::forward_inference, alg, src_md, any(wd),
                                                     any({c.y[1]}), dst_md, strides, dilates, pad, pad)
                         : convolution_forward::desc(prop_kind::forward_inference, alg, src_md, any(wd),
                                                     dst_md, strides, dilates, pad, pad);
  // The same chain graft's conv kernel builds (runtime/kernels/conv.cpp).
  post_ops ops;
  runtime::append_post_ops(ops, c.act);
  if (c.has_residual) ops.append_sum(1.0f);
  if (!runtime::must_split_post_ops(c.act, c.has_residual, c.post_act)) {
    runtime::append_post_ops(ops, c.post_act);
  }
  primitive_attr attr = runtime::KernelContext::scratchpad_attr();  // user-managed, as graft's
  attr.set_post_ops(ops);
  convolution_forward::primitive_desc pd;
  try {
    pd = convolution_forward::primitive_desc(desc, attr, eng);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  out->args = {{DNNL_ARG_SRC, memory(pd.src_desc(), eng)},
               {DNNL_ARG_WEIGHTS, memory(pd.weights_desc(), eng)},
               {DNNL_ARG_DST, memory(pd.dst_desc(), eng)}};
  if (c.has_bias) out->args.emplace(DNNL_ARG_BIAS, memory(pd.bias_desc(), eng));
  if (pd.scratchpad_desc().get_size() > 0) {
    out->args.emplace(DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), eng));
  }
  // Small finite values everywhere (no denormals, no NaN: both could change the timing).
  for (auto& [arg, mem] : out->args) {
    float* p = static_cast<float*>(mem.get_data_handle());
    const size_t n = mem.get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) p[i] = 0.01f * static_cast<float>(i % 97) - 0.48f;
  }
  out->conv = convolution_forward(pd);
  out->impl = runtime::impl_name(pd);
  return out;
}

/// One convolution step of the model and its standalone counterparts.
struct ConvRow {
  size_t step = 0;
  ConvShape shape;
  std::unique_ptr<Standalone> alone;   // same algorithm as graft's
  std::unique_ptr<Standalone> direct;  // for Winograd layers: the direct algorithm too
};

int run(const Flags& flags) {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model(flags.model, diags);
  if (!model) {
    diags.render(std::cerr);
    return 1;
  }
  runtime::set_num_threads(flags.threads);
  runtime::CompileOptions options;
  options.source_name = flags.model;
  options.shapes.symbols["N"] = flags.batch;
  std::unique_ptr<runtime::Executable> exe = runtime::compile(*model->graph, options, diags);
  std::unique_ptr<Graph> typed =
      exe ? eval::concretize_graph(*model->graph, options.shapes, flags.model, diags) : nullptr;
  if (!exe || !typed) {
    diags.render(std::cerr);
    return 1;
  }
  std::vector<eval::Tensor> inputs, outputs;
  for (const runtime::TensorInfo& i : exe->inputs()) inputs.push_back(eval::Tensor::random(i.shape, 1));
  for (const runtime::TensorInfo& o : exe->outputs()) outputs.push_back(eval::Tensor::zeros(o.dtype, o.shape));

  // The standalone convolutions, built before anything is timed.
  std::vector<ConvRow> rows;
  for (size_t s = 0; s < exe->steps().size(); ++s) {
    const runtime::StepInfo& step = exe->steps()[s];
    if (step.op != "conv2d_post" && step.op != "conv2d") continue;
    const Node* node = typed->find(step.name);
    std::optional<ConvShape> c = node ? read_conv(*node) : std::nullopt;
    if (!c) {
      std::fprintf(stderr, "conv_efficiency: cannot read convolution '%s'\n", step.name.c_str());
      return 3;
    }
    ConvRow row{s, *c, nullptr, nullptr};
    const bool winograd = step.impl.find("wino") != std::string::npos;
    row.alone = make_standalone(*c, winograd ? dnnl::algorithm::convolution_winograd
                                             : dnnl::algorithm::convolution_direct);
    if (!row.alone) {
      std::fprintf(stderr, "conv_efficiency: oneDNN has no standalone primitive for '%s'\n",
                   step.name.c_str());
      return 3;
    }
    // For Winograd layers, also the direct algorithm in oneDNN's own layout: is Winograd the
    // better choice on this machine?
    if (winograd) row.direct = make_standalone(*c, dnnl::algorithm::convolution_direct);
    rows.push_back(std::move(row));
  }
  // One scratchpad for all standalone convolutions, as graft's kernels share one and as
  // oneDNN's own library-managed scratchpad is shared by the primitives of a thread: a seq
  // pass then finds the bytes the previous convolution's scratchpad left in the caches.
  size_t scratchpad_bytes = 0;
  for (ConvRow& row : rows) {
    for (Standalone* s : {row.alone.get(), row.direct.get()}) {
      if (s == nullptr || s->args.count(DNNL_ARG_SCRATCHPAD) == 0) continue;
      scratchpad_bytes = std::max(scratchpad_bytes, s->args.at(DNNL_ARG_SCRATCHPAD).get_desc().get_size());
    }
  }
  std::vector<std::byte> shared_scratchpad(scratchpad_bytes + 64);
  void* scratchpad = shared_scratchpad.data() + (64 - reinterpret_cast<uintptr_t>(shared_scratchpad.data()) % 64);
  for (ConvRow& row : rows) {
    for (Standalone* s : {row.alone.get(), row.direct.get()}) {
      if (s != nullptr && s->args.count(DNNL_ARG_SCRATCHPAD) != 0) {
        s->args.at(DNNL_ARG_SCRATCHPAD).set_data_handle(scratchpad);
      }
    }
  }

  // Timed in rounds that alternate the model's runs with the standalone convolutions' runs, so
  // that a change in the machine's speed during the measurement (a shared host) falls on both
  // sides alike; medians over all rounds. Within a round each standalone convolution runs
  // back to back on its own buffers (cache-hot, the upper bound described above).
  const size_t nsteps = exe->steps().size();
  std::vector<std::vector<double>> per_step(nsteps);
  std::vector<double> step_ms, run_ms;
  for (int i = 0; i < flags.warmup; ++i) {
    if (!exe->run_into(inputs, outputs, diags, &step_ms)) {
      diags.render(std::cerr);
      return 1;
    }
  }
  constexpr int kRunsPerRound = 5;
  for (int done = 0; done < flags.iters; done += kRunsPerRound) {
    const int runs = std::min(kRunsPerRound, flags.iters - done);
    for (int i = 0; i < runs; ++i) {
      auto t = Clock::now();
      if (!exe->run_into(inputs, outputs, diags, &step_ms)) {
        diags.render(std::cerr);
        return 1;
      }
      run_ms.push_back(ms_since(t));
      for (size_t s = 0; s < nsteps; ++s) per_step[s].push_back(step_ms[s]);
    }
    for (int i = 0; i < runs; ++i) {
      for (ConvRow& row : rows) row.alone->time_in_sequence();
    }
    for (ConvRow& row : rows) {
      row.alone->time_round(runs, /*cold=*/false);
      row.alone->time_round(runs, /*cold=*/true);
      if (row.direct) row.direct->time_round(runs, /*cold=*/false);
    }
  }

  nlohmann::json convs = nlohmann::json::array();
  double flops = 0, graft_ms = 0, alone_ms = 0, cold_ms = 0, seq_ms = 0, all_steps_ms = 0;
  for (size_t s = 0; s < nsteps; ++s) all_steps_ms += median(per_step[s]);
  if (!flags.json) {
    std::printf("%-28s %-26s %-22s %8s %7s  %-22s %8s %7s %6s %8s %6s %9s %6s\n", "node", "shape",
                "graft impl", "ms", "GFLOP/s", "standalone impl", "ms", "GFLOP/s", "ratio",
                "seq ms", "ratio", "cold ms", "ratio");
  }
  for (const ConvRow& row : rows) {
    const runtime::StepInfo& step = exe->steps()[row.step];
    const ConvShape& c = row.shape;
    const double ms = median(per_step[row.step]);
    const double alone = median(row.alone->times);
    const double cold = median(row.alone->cold_times);
    const double seq = median(row.alone->seq_times);
    const double f = c.flops();
    flops += f;
    graft_ms += ms;
    alone_ms += alone;
    cold_ms += cold;
    seq_ms += seq;
    nlohmann::json j = {{"node", step.name},
                        {"shape", c.describe()},
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
    std::string direct_note;
    if (row.direct) {
      const double direct = median(row.direct->times);
      j["standalone_direct_ms"] = direct;
      direct_note = " (direct alone " + std::to_string(direct).substr(0, 6) + " ms)";
    }
    convs.push_back(j);
    if (!flags.json) {
      std::printf(
          "%-28s %-26s %-22.22s %8.3f %7.1f  %-22.22s %8.3f %7.1f %5.0f%% %8.3f %5.0f%% %9.3f "
          "%5.0f%%%s\n",
          step.name.c_str(), c.describe().c_str(), step.impl.c_str(), ms, f / ms / 1e6,
          row.alone->impl.c_str(), alone, f / alone / 1e6, 100.0 * alone / ms, seq,
          100.0 * seq / ms, cold, 100.0 * cold / ms, direct_note.c_str());
    }
  }
  const double run_p50 = median(run_ms);
  nlohmann::json out = {{"model", flags.model},
                        {"batch", flags.batch},
                        {"threads", flags.threads},
                        {"iters", flags.iters},
                        {"run_p50_ms", run_p50},
                        {"steps_ms", all_steps_ms},
                        {"conv_count", convs.size()},
                        {"conv_graft_ms", graft_ms},
                        {"conv_standalone_ms", alone_ms},
                        {"gflops_graft", flops / graft_ms / 1e6},
                        {"gflops_standalone", flops / alone_ms / 1e6},
                        {"ratio", alone_ms / graft_ms},
                        {"conv_standalone_seq_ms", seq_ms},
                        {"ratio_seq", seq_ms / graft_ms},
                        {"conv_standalone_cold_ms", cold_ms},
                        {"ratio_cold", cold_ms / graft_ms},
                        {"per_conv", convs}};
  if (flags.json) {
    std::cout << out.dump() << "\n";
  } else {
    std::printf("\n%zu convolutions: graft %.2f ms (%.1f GFLOP/s), standalone %.2f ms (%.1f GFLOP/s): "
                "graft at %.0f%% of standalone\n",
                convs.size(), graft_ms, flops / graft_ms / 1e6, alone_ms, flops / alone_ms / 1e6,
                100.0 * alone_ms / graft_ms);
    std::printf("standalone convolutions run in the model's order, each input just written: %.2f ms; "
                "graft at %.0f%% of that\n",
                seq_ms, 100.0 * seq_ms / graft_ms);
    std::printf(
        "standalone with its weights, bias and scratchpad flushed from the caches before each run: "
        "%.2f ms; "
        "graft at %.0f%% of that\n",
        cold_ms, 100.0 * cold_ms / graft_ms);
    std::printf("convolutions are %.0f%% of the step time (%.2f ms; a whole profiled run %.2f ms)\n",
                100.0 * graft_ms / all_steps_ms, all_steps_ms, run_p50);
  }
  return 0;
}

}  // namespace
}  // namespace graft

int main(int argc, char** argv) {
  graft::Flags flags;
  CLI::App app{"graft's convolutions inside a model vs standalone oneDNN convolutions of the same shapes"};
  app.add_option("model", flags.model, "model.json (rewritten with rules/std.rules)")->required();
  app.add_option("--batch", flags.batch, "value of the batch symbol N")->check(CLI::PositiveNumber);
  app.add_option("--threads", flags.threads, "oneDNN threads")
      ->check(CLI::Range(1, graft::runtime::kMaxThreads));
  app.add_option("--iters", flags.iters, "timed runs (medians)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", flags.warmup, "untimed runs first")->check(CLI::NonNegativeNumber);
  app.add_flag("--json", flags.json, "print one JSON object instead of the table");
  CLI11_PARSE(app, argc, argv);
  graft::install_out_of_memory_handler();
  try {
    return graft::run(flags);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "conv_efficiency: error: out of memory\n");
    return 1;
  }
}
