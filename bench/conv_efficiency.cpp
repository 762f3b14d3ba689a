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
// choices, memory plan and run loop cost. Compiling, the rounds and the report are
// bench/step_efficiency.h's, which matmul_efficiency shares.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/step_efficiency.h"
#include "runtime/kernels/activation.h"

namespace graft::bench {
namespace {

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

/// A standalone oneDNN convolution of shape `c` with algorithm `alg`, every memory descriptor
/// format_tag::any; nullptr if oneDNN has no such primitive.
std::unique_ptr<Standalone> make_standalone(const ConvShape& c, dnnl::algorithm alg) {
  using namespace dnnl;
  auto out = std::make_unique<Standalone>();
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
    pd = convolution_forward::primitive_desc(desc, attr, out->eng);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  out->init(pd, convolution_forward(pd), c.has_bias);
  return out;
}

int run(const Flags& flags) {
  std::optional<CompiledModel> m = compile_model(flags);
  if (!m) return 1;
  // The standalone convolutions, built before anything is timed.
  std::vector<StepRow> rows;
  for (size_t s = 0; s < m->exe->steps().size(); ++s) {
    const runtime::StepInfo& step = m->exe->steps()[s];
    if (step.op != "conv2d_post" && step.op != "conv2d") continue;
    const Node* node = m->typed->find(step.name);
    std::optional<ConvShape> c = node ? read_conv(*node) : std::nullopt;
    if (!c) {
      std::fprintf(stderr, "conv_efficiency: cannot read convolution '%s'\n", step.name.c_str());
      return 3;
    }
    StepRow row{s, c->describe(), c->flops(), nullptr, nullptr, "direct"};
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
    if (winograd) row.alt = make_standalone(*c, dnnl::algorithm::convolution_direct);
    rows.push_back(std::move(row));
  }
  std::vector<std::byte> scratchpad = share_scratchpad(rows);
  std::optional<ModelTimes> times = time_rounds(*m, rows, flags);
  if (!times) return 1;
  return report(flags, *m, rows, *times, {"conv", "convolutions"});
}

}  // namespace
}  // namespace graft::bench

int main(int argc, char** argv) {
  graft::bench::Flags flags;
  CLI::App app{"graft's convolutions inside a model vs standalone oneDNN convolutions of the same shapes"};
  graft::bench::add_options(app, flags);
  CLI11_PARSE(app, argc, argv);
  return graft::bench::run_guarded("conv_efficiency", [&] { return graft::bench::run(flags); });
}
