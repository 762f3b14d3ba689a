// Convolution over 1 and 3 spatial dims (conv1d, conv3d) on oneDNN's convolution_forward with
// 3-D / 5-D memory. No post-ops and no algorithm choice: the rules fuse conv2d only. An
// unbatched input (C, spatial...) runs the reference loop instead.
#include "runtime/kernels/families.h"

namespace graft::runtime {

std::optional<KernelPlan> build_conv_nd(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  const Operand& w = ctx.operand(1);
  const Operand& bias = ctx.operand(2);
  if (!x.is_tensor() || !w.is_tensor()) return ctx.not_implemented("a scalar input or weight");
  if (x.shape().size() != w.shape().size()) return build_fallback(ctx);
  auto stride = ctx.ints_attr("stride");
  auto padding = ctx.ints_attr("padding");
  auto dilation = ctx.ints_attr("dilation");
  auto groups = ctx.int_attr("groups");
  if (!stride || !padding || !dilation || !groups) return std::nullopt;
  const size_t k = w.shape().size() - 2;
  if (stride->size() != k || padding->size() != k || dilation->size() != k) {
    return ctx.fail("stride, padding and dilation must have one value per spatial dim");
  }
  // torch's (O, I/g, k...) bytes are oneDNN's grouped (g, O/g, I/g, k...) as they are.
  Shape wdims = w.shape();
  if (*groups > 1) {
    wdims = {*groups, w.shape()[0] / *groups};
    wdims.insert(wdims.end(), w.shape().begin() + 1, w.shape().end());
  }
  const Shape& out = ctx.out().shape;
  const bool blocked = ctx.allow_blocked();
  md_t src_md = blocked ? any_md(x.shape()) : plain_md(x.shape());
  md_t dst_md = blocked ? any_md(out) : plain_md(out);
  md_t w_md = w.constant ? any_md(wdims) : plain_md(wdims);
  md_t b_md = bias.is_tensor() ? plain_md({out[1]}) : md_t();
  dnnl::memory::dims strides(stride->begin(), stride->end());
  dnnl::memory::dims pad(padding->begin(), padding->end());
  dnnl::memory::dims dilates;
  for (int64_t d : *dilation) dilates.push_back(d - 1);  // oneDNN counts the gaps
  const auto direct = dnnl::algorithm::convolution_direct;
  const auto prop = dnnl::prop_kind::forward_inference;
  auto desc = bias.is_tensor()
                  ? dnnl::convolution_forward::desc(prop, direct, src_md, w_md, b_md, dst_md,
                                                    strides, dilates, pad, pad)
                  : dnnl::convolution_forward::desc(prop, direct, src_md, w_md, dst_md, strides,
                                                    dilates, pad, pad);
  dnnl::convolution_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(),
                                               ctx.engine());
  std::vector<std::pair<int, ArgSource>> args;
  KernelPlan plan = conv_like_plan(ctx, pd, plain_md(wdims), args);
  set_single_primitive(plan, pd, dnnl::convolution_forward(pd), std::move(args), "conv");
  return plan;
}

}  // namespace graft::runtime
