// Transposed convolution (conv_transpose1d/2d/3d) on oneDNN's deconvolution_forward over
// 3-D, 4-D or 5-D memory. torch's output_padding adds rows at the high end only, so it becomes
// a smaller right padding. torch's weight (C, O/groups, k...) is oneDNN's (O, I, k...) or
// (g, O/g, I/g, k...) with the first two dims swapped, described by strides and reordered once
// into the primitive's layout. An unbatched input, a computed weight, or a case oneDNN has no
// kernel for runs the reference loop instead.
#include <numeric>

#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

/// oneDNN's logical weight dims for torch's (C, O/groups, k...) weight, and strides that read
/// torch's bytes in that order.
md_t torch_weight_md(const Shape& w, int64_t groups) {
  const size_t k = w.size() - 2;
  const int64_t volume =
      std::accumulate(w.begin() + 2, w.end(), int64_t{1}, std::multiplies<int64_t>());
  const int64_t in_per_group = w[0] / groups, out_per_group = w[1];
  dnnl::memory::dims dims, strides;
  if (groups > 1) {
    dims.push_back(groups);
    strides.push_back(in_per_group * out_per_group * volume);
  }
  dims.insert(dims.end(), {out_per_group, in_per_group});
  strides.insert(strides.end(), {volume, out_per_group * volume});
  int64_t inner = volume;
  for (size_t i = 0; i < k; ++i) {
    dims.push_back(w[2 + i]);
    inner /= w[2 + i];
    strides.push_back(inner);
  }
  return md_t(dims, dt::f32, strides);
}

}  // namespace

std::optional<KernelPlan> build_conv_transpose(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  const Operand& w = ctx.operand(1);
  const Operand& bias = ctx.operand(2);
  if (!x.is_tensor() || !w.is_tensor()) return ctx.not_implemented("a scalar input or weight");
  if (x.shape().size() != w.shape().size() || w.constant == nullptr) return build_fallback(ctx);
  auto stride = ctx.ints_attr("stride");
  auto padding = ctx.ints_attr("padding");
  auto output_padding = ctx.ints_attr("output_padding");
  auto dilation = ctx.ints_attr("dilation");
  auto groups = ctx.int_attr("groups");
  if (!stride || !padding || !output_padding || !dilation || !groups) return std::nullopt;
  const size_t k = w.shape().size() - 2;
  if (stride->size() != k || padding->size() != k || output_padding->size() != k ||
      dilation->size() != k) {
    return ctx.fail("stride, padding, output_padding and dilation need one value per spatial dim");
  }
  const md_t given = torch_weight_md(w.shape(), *groups);
  const Shape& out = ctx.out().shape;
  const bool blocked = ctx.allow_blocked();
  md_t src_md = blocked ? any_md(x.shape()) : plain_md(x.shape());
  md_t dst_md = blocked ? any_md(out) : plain_md(out);
  md_t w_md = any_md(md_shape(given));
  md_t b_md = bias.is_tensor() ? plain_md(bias.shape()) : md_t();
  dnnl::memory::dims strides(stride->begin(), stride->end());
  dnnl::memory::dims pad_l(padding->begin(), padding->end());
  dnnl::memory::dims pad_r, dilates;
  for (size_t i = 0; i < k; ++i) {
    pad_r.push_back((*padding)[i] - (*output_padding)[i]);
    dilates.push_back((*dilation)[i] - 1);  // oneDNN counts the gaps
  }
  const auto direct = dnnl::algorithm::deconvolution_direct;
  const auto prop = dnnl::prop_kind::forward_inference;
  dnnl::deconvolution_forward::primitive_desc pd;
  try {
    auto desc = bias.is_tensor()
                    ? dnnl::deconvolution_forward::desc(prop, direct, src_md, w_md, b_md, dst_md,
                                                        strides, dilates, pad_l, pad_r)
                    : dnnl::deconvolution_forward::desc(prop, direct, src_md, w_md, dst_md,
                                                        strides, dilates, pad_l, pad_r);
    pd = dnnl::deconvolution_forward::primitive_desc(desc, KernelContext::scratchpad_attr(),
                                                     ctx.engine());
  } catch (const dnnl::error&) {
    // oneDNN refuses some shapes (a negative right padding with dilation).
    return build_fallback(ctx);
  }
  std::vector<std::pair<int, ArgSource>> args;
  KernelPlan plan = conv_like_plan(ctx, pd, given, args);
  set_single_primitive(plan, pd, dnnl::deconvolution_forward(pd), std::move(args), "deconv");
  return plan;
}

}  // namespace graft::runtime
