// max_pool2d/3d, avg_pool2d/3d, adaptive_avg_pool2d/3d and adaptive_max_pool2d on oneDNN's
// pooling (v2, which has dilation) over 4-d or 5-d memory. Pooling takes the input's layout as it comes (blocked after a
// convolution). Torch's ceil_mode becomes extra right padding; the one case oneDNN's
// averaging cannot reproduce (count_include_pad with padding *and* ceil_mode, where torch
// divides by a window clipped at the declared padding) and divisor_override go to the
// fallback, as do adaptive pools whose windows are not all the same size.
#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

using dnnl::algorithm;

struct Window {
  dnnl::memory::dims kernel, stride, dilation, pad_l, pad_r;
};

std::optional<KernelPlan> make_pool(KernelContext& ctx, algorithm alg, const Window& w) {
  md_t src = ctx.pass_through_md(0);
  md_t dst = ctx.allow_blocked() ? any_md(ctx.out().shape) : plain_md(ctx.out().shape);
  dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src, dst,
                                      w.stride, w.kernel, w.dilation, w.pad_l, w.pad_r);
  dnnl::pooling_v2_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(),
                                              ctx.engine());
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = pd.src_desc();
  plan.dst_md = pd.dst_desc();
  set_single_primitive(plan, pd, dnnl::pooling_v2_forward(pd),
                       {{DNNL_ARG_SRC, ArgSource::src(0)}, {DNNL_ARG_DST, ArgSource::dst()}},
                       "pool");
  return plan;
}

/// max_pool and avg_pool over the last `n` dims of an (N, C, *spatial) input.
std::optional<KernelPlan> build_pool(KernelContext& ctx, size_t n) {
  const bool is_max = ctx.op().starts_with("max_pool");
  const Operand& x = ctx.operand(0);
  if (!x.is_tensor()) return ctx.not_implemented("a non-tensor input");
  // The reference loops take unbatched inputs as well; oneDNN wants (N, C, *spatial).
  if (x.shape().size() != n + 2) return build_fallback(ctx);
  auto kernel = ctx.ints_attr("kernel_size");
  auto stride = ctx.ints_or_none("stride");
  auto padding = ctx.ints_attr("padding");
  auto ceil_mode = ctx.bool_attr("ceil_mode");
  if (!kernel || !stride || !padding || !ceil_mode) return std::nullopt;
  std::vector<int64_t> dilation(n, 1);
  bool include_pad = false;
  if (is_max) {
    auto d = ctx.ints_attr("dilation");
    if (!d) return std::nullopt;
    dilation = *d;
  } else {
    auto inc = ctx.bool_attr("count_include_pad");
    if (!inc) return std::nullopt;
    include_pad = *inc;
    if (ctx.has_attr("divisor_override")) {
      const AttrValue* div = ctx.attr("divisor_override");
      if (!is_none(*div)) return build_fallback(ctx);
    }
  }
  if (stride->empty()) stride = kernel;  // torch: stride defaults to kernel_size
  auto widen = [n](std::vector<int64_t> v) {
    return v.size() == 1 ? std::vector<int64_t>(n, v[0]) : v;
  };
  *kernel = widen(*kernel);
  *stride = widen(*stride);
  *padding = widen(*padding);
  dilation = widen(dilation);
  if (kernel->size() != n || stride->size() != n || padding->size() != n ||
      dilation.size() != n) {
    return ctx.fail("kernel_size, stride, padding and dilation must have " + std::to_string(n) +
                    " values each");
  }
  Window w;
  bool ceil_extra = false, any_pad = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.shape()[2 + i];
    int64_t out = ctx.out().shape[2 + i];
    int64_t extent = ((*kernel)[i] - 1) * dilation[i] + 1;
    // Right padding that makes oneDNN's floor((in + l + r - extent) / s) + 1 equal torch's
    // size, which ceil_mode may have rounded up.
    int64_t pad_r = std::max((*padding)[i], (out - 1) * (*stride)[i] + extent - in - (*padding)[i]);
    ceil_extra |= pad_r > (*padding)[i];
    any_pad |= (*padding)[i] > 0;
    w.kernel.push_back((*kernel)[i]);
    w.stride.push_back((*stride)[i]);
    w.dilation.push_back(dilation[i] - 1);
    w.pad_l.push_back((*padding)[i]);
    w.pad_r.push_back(pad_r);
  }
  algorithm alg = algorithm::pooling_max;
  if (!is_max) {
    if (!include_pad || !any_pad) {
      // Without declared padding, torch's divisor is the count of valid elements even in the
      // ceil_mode overhang, which is exactly exclude_padding.
      alg = algorithm::pooling_avg_exclude_padding;
    } else if (!ceil_extra) {
      alg = algorithm::pooling_avg_include_padding;
    } else {
      return build_fallback(ctx);
    }
  }
  return make_pool(ctx, alg, w);
}

/// adaptive pooling over the last `n` dims of an (N, C, *spatial) input.
std::optional<KernelPlan> build_adaptive_pool(KernelContext& ctx, size_t n) {
  const Operand& x = ctx.operand(0);
  if (!x.is_tensor()) return ctx.not_implemented("a non-tensor input");
  if (x.shape().size() != n + 2) return build_fallback(ctx);
  Window w;
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.shape()[2 + i];
    int64_t out = ctx.out().shape[2 + i];
    // Torch's windows are [floor(i*in/out), ceil((i+1)*in/out)): all equal only if out | in.
    if (out <= 0 || in % out != 0) return build_fallback(ctx);
    w.kernel.push_back(in / out);
    w.stride.push_back(in / out);
    w.dilation.push_back(0);
    w.pad_l.push_back(0);
    w.pad_r.push_back(0);
  }
  bool is_max = ctx.op().starts_with("adaptive_max_pool");
  return make_pool(ctx, is_max ? algorithm::pooling_max : algorithm::pooling_avg_exclude_padding,
                   w);
}

}  // namespace

std::optional<KernelPlan> build_pool2d(KernelContext& ctx) { return build_pool(ctx, 2); }
std::optional<KernelPlan> build_pool3d(KernelContext& ctx) { return build_pool(ctx, 3); }
std::optional<KernelPlan> build_adaptive_pool2d(KernelContext& ctx) {
  return build_adaptive_pool(ctx, 2);
}
std::optional<KernelPlan> build_adaptive_pool3d(KernelContext& ctx) {
  return build_adaptive_pool(ctx, 3);
}

}  // namespace graft::runtime
