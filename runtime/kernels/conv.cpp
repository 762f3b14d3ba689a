// Convolution kernels: conv2d and the fused conv2d_post (activation, residual sum, activation
// as oneDNN post-ops). The source and destination use format_tag::any when blocked layouts
// are allowed, so the primitive picks its preferred (blocked) layout and the compiler inserts
// reorders only where a neighbour cannot take it. Constant weights and bias are reordered into
// the primitive's layout here, once.
#include "runtime/kernels/activation.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
};

std::optional<ConvParams> read_params(KernelContext& ctx) {
  ConvParams p;
  auto stride = ctx.ints_attr("stride");
  auto padding = ctx.ints_attr("padding");
  auto dilation = ctx.ints_attr("dilation");
  auto groups = ctx.int_attr("groups");
  if (!stride || !padding || !dilation || !groups) return std::nullopt;
  if (stride->size() != 2 || padding->size() != 2 || dilation->size() != 2) {
    return ctx.fail("stride, padding and dilation must have two values each");
  }
  p.stride = *stride;
  p.padding = *padding;
  p.dilation = *dilation;
  p.groups = *groups;
  return p;
}

/// The weights dims oneDNN wants: oihw, or goihw with groups. Torch's [O, I/g, kH, kW] bytes
/// are exactly goihw's [g, O/g, I/g, kH, kW], so a plain view needs no copy.
Shape weight_dims(const Shape& w, int64_t groups) {
  if (groups == 1) return w;
  return {groups, w[0] / groups, w[1], w[2], w[3]};
}

bool winograd_shape(const Shape& w, const std::vector<int64_t>& stride,
                    const std::vector<int64_t>& dilation, int64_t groups) {
  return groups == 1 && w.size() == 4 && w[2] == 3 && w[3] == 3 &&
         stride == std::vector<int64_t>{1, 1} && dilation == std::vector<int64_t>{1, 1} &&
         w[0] >= 16 && w[1] >= 16;
}

/// A dense, undilated convolution with a stride above 1 and a kernel larger than 1x1
/// (ResNet's stem and its stride-2 3x3 layers): the case that runs faster in brgconv's nhwc
/// than in the graph-wide aBcd16b.
bool is_strided_spatial(const Shape& w, const ConvParams& p) {
  return w.size() == 4 && p.groups == 1 && p.dilation == std::vector<int64_t>{1, 1} &&
         (p.stride[0] > 1 || p.stride[1] > 1) && (w[2] > 1 || w[3] > 1);
}

/// 4-d dims in the channel-blocked layout aBcd<block>b (nChw16c for block 16).
md_t blocked_md(const Shape& shape, int block) {
  return md_t(to_dims(shape), dt::f32, block == 16 ? tag::aBcd16b : tag::aBcd8b);
}

}  // namespace

// Winograd F(2x2 or 4x4, 3x3) does ~2.25-4x fewer multiplications for 3x3 stride-1 kernels;
// with oneDNN 2.6 on AVX-512 that makes ResNet's 3x3 layers faster than the direct algorithm.
// Small channel counts stay direct.
bool is_winograd_shape(const Node& node) {
  if (!node.is_op("conv2d") && !node.is_op("conv2d_post")) return false;
  const Node* w = node.input_node(1);
  if (w == nullptr || !w->type()) return false;
  const auto* stride = std::get_if<std::vector<int64_t>>(&node.attr("stride"));
  const auto* dilation = std::get_if<std::vector<int64_t>>(&node.attr("dilation"));
  const auto* groups = std::get_if<int64_t>(&node.attr("groups"));
  return stride && dilation && groups && winograd_shape(w->type()->shape, *stride, *dilation, *groups);
}

bool cpu_has_winograd() {
  auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  return (isa & avx512) == avx512;
}

KernelPlan conv_like_plan(const KernelContext& ctx, const dnnl::primitive_desc& pd,
                          const md_t& weights, std::vector<std::pair<int, ArgSource>>& args) {
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = pd.src_desc(0);
  plan.dst_md = pd.dst_desc(0);
  args = {{DNNL_ARG_SRC, ArgSource::src(0)}, {DNNL_ARG_DST, ArgSource::dst()}};
  bind_parameter(ctx, plan, args, DNNL_ARG_WEIGHTS, ctx.operand(1), 1, weights,
                 pd.weights_desc(0));
  const Operand& bias = ctx.operand(2);
  if (bias.is_tensor()) {
    bind_parameter(ctx, plan, args, DNNL_ARG_BIAS, bias, 2, plain_md(bias.shape()),
                   pd.weights_desc(1));
  }
  return plan;
}

std::optional<KernelPlan> build_conv2d(KernelContext& ctx) {
  const bool fused = ctx.family() == OpFamily::kConv2dPost;
  const Operand& x = ctx.operand(0);
  const Operand& w = ctx.operand(1);
  const Operand& bias = ctx.operand(2);
  const Operand& residual = ctx.operand(3);
  if (!x.is_tensor() || !w.is_tensor()) return ctx.not_implemented("a scalar input or weight");
  auto params = read_params(ctx);
  if (!params) return std::nullopt;

  std::vector<EltwiseStep> act, post_act;
  if (fused) {
    auto a = fused_activation(ctx, "");
    auto b = fused_activation(ctx, "post_");
    if (!a || !b) return std::nullopt;
    act = std::move(*a);
    post_act = std::move(*b);
  }

  const Shape& out = ctx.out().shape;
  const Shape wdims = weight_dims(w.shape(), params->groups);
  const bool blocked = ctx.allow_blocked();
  md_t src_md = blocked ? any_md(x.shape()) : plain_md(x.shape());
  md_t dst_md = blocked ? any_md(out) : plain_md(out);
  // Constant weights may take any layout (reordered below); computed ones are read as given.
  md_t w_md = w.constant ? any_md(wdims) : plain_md(wdims);
  md_t b_md = bias.is_tensor() ? plain_md({out[1]}) : md_t();

  dnnl::memory::dims strides = {params->stride[0], params->stride[1]};
  dnnl::memory::dims dilates = {params->dilation[0] - 1, params->dilation[1] - 1};
  dnnl::memory::dims pad = {params->padding[0], params->padding[1]};
  // Symmetric padding as torch has it; oneDNN floors (in + 2p - extent) / stride like torch.
  auto make_desc = [&](dnnl::algorithm alg, const md_t& src, const md_t& dst) {
    return bias.is_tensor()
               ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, src,
                                                 w_md, b_md, dst, strides, dilates, pad, pad)
               : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, src,
                                                 w_md, dst, strides, dilates, pad, pad);
  };
  dnnl::primitive_attr attr = KernelContext::scratchpad_attr();
  dnnl::post_ops ops;
  append_post_ops(ops, act);
  if (residual.is_tensor()) ops.append_sum(1.0f);
  const bool split = must_split_post_ops(act, residual.is_tensor(), post_act);
  if (!split) append_post_ops(ops, post_act);
  attr.set_post_ops(ops);

  // Candidates, best first; oneDNN throws where it has no kernel for one (Winograd exists
  // only for some shapes, ISAs and post-op chains) and the next is tried. A candidate that
  // would run oneDNN's slow reference kernel is skipped too, unless it is the last.
  //  1. Winograd, for eligible 3x3 stride-1 layers (it works in aBcd16b).
  //  2. In a graph with a preferred blocked layout (see preferred_block), a dense strided
  //     convolution with a kernel larger than 1x1 in oneDNN's own choice of layout: brgconv in
  //     nhwc, which oneDNN 2.6 has in no blocked layout, runs ResNet's stride-2 3x3 and 7x7
  //     layers faster than the direct aBcd16b kernel (jit:avx512_core), by more than the
  //     reorder into nhwc and back costs.
  //  3. Direct in the graph-wide blocked layout when one is preferred: the input as it comes
  //     if it is already in that layout or plain (nchw, as a 3-channel stem gets it), else
  //     reordered into it, so that one strided convolution's nhwc result does not spread
  //     through the following blocks; the result in that layout.
  //  4. Direct reading the input in the blocked layout it already has, so a region keeps one
  //     layout and a residual can be summed in place.
  //  5. Direct with format_tag::any: the primitive's own preference (nhwc for brgconv).
  struct Candidate {
    dnnl::algorithm alg;
    md_t src, dst;
  };
  std::vector<Candidate> candidates;
  const auto direct = dnnl::algorithm::convolution_direct;
  if (ctx.allow_winograd() &&
      winograd_shape(w.shape(), params->stride, params->dilation, params->groups)) {
    candidates.push_back({dnnl::algorithm::convolution_winograd, src_md, dst_md});
  }
  const bool delivered_blocked = blocked && !x.md.is_zero() && !is_plain(x.md);
  const int block = blocked ? ctx.preferred_block() : 0;
  if (block > 0 && is_strided_spatial(w.shape(), *params)) {
    candidates.push_back({direct, src_md, dst_md});
  }
  if (block > 0) {
    const md_t src = !delivered_blocked ? plain_md(x.shape()) : blocked_md(x.shape(), block);
    candidates.push_back({direct, src, blocked_md(out, block)});
  }
  if (delivered_blocked) candidates.push_back({direct, x.md, dst_md});
  candidates.push_back({direct, src_md, dst_md});
  dnnl::convolution_forward::primitive_desc pd;
  for (size_t i = 0; i < candidates.size() && !pd; ++i) {
    const Candidate& c = candidates[i];
    if (i + 1 == candidates.size()) {
      pd = dnnl::convolution_forward::primitive_desc(make_desc(c.alg, c.src, c.dst), attr,
                                                     ctx.engine());
      break;
    }
    try {
      pd = dnnl::convolution_forward::primitive_desc(make_desc(c.alg, c.src, c.dst), attr,
                                                     ctx.engine());
      if (impl_name(pd).rfind("ref", 0) == 0) pd = {};
    } catch (const dnnl::error&) {
    }
  }

  std::vector<std::pair<int, ArgSource>> args;
  KernelPlan plan = conv_like_plan(ctx, pd, plain_md(wdims), args);
  if (residual.is_tensor()) {
    // The sum post-op adds what dst holds; the compiler fills dst with the residual first, or
    // lets the conv write into the residual's buffer when the residual dies here.
    plan.src_mds[3] = residual.md;
    plan.accumulate_src = 3;
  }
  set_single_primitive(plan, pd, dnnl::convolution_forward(pd), std::move(args), "conv");
  if (split) {
    append_eltwise_on_dst(static_cast<PrimitiveKernel&>(*plan.kernel), plan, plan.dst_md, post_act);
  }
  return plan;
}

}  // namespace graft::runtime
