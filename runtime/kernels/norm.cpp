// batch_norm (inference, running statistics) and layer_norm on oneDNN's normalization
// primitives. Batch norm takes the input's layout as it comes and may run in place; layer
// norm sees its input as a plain [rows, normalized size] matrix. Statistics, scale and shift
// are read as plain 1-d tensors (constants are used where they lie, without a copy).
#include "runtime/kernels/families.h"

namespace graft::runtime {

using dnnl::normalization_flags;

std::optional<KernelPlan> build_batch_norm(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  auto training = ctx.bool_attr("training");
  auto eps = ctx.float_attr("eps");
  if (!training || !eps) return std::nullopt;
  if (*training) return ctx.not_implemented("batch_norm in training mode (export in eval mode)");
  if (!x.is_tensor() || x.shape().size() < 2) return ctx.not_implemented("an input of rank < 2");
  if (!ctx.operand(1).is_tensor() || !ctx.operand(2).is_tensor()) {
    return ctx.not_implemented("batch_norm without running statistics");
  }
  const int64_t channels = x.shape()[1];
  const bool has_scale = ctx.operand(3).is_tensor();
  const bool has_shift = ctx.operand(4).is_tensor();
  auto flags = normalization_flags::use_global_stats;
  if (has_scale) flags |= normalization_flags::use_scale;
  if (has_shift) flags |= normalization_flags::use_shift;
  md_t data = ctx.pass_through_md(0);
  dnnl::batch_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                               static_cast<float>(*eps), flags);
  dnnl::batch_normalization_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(),
                                                       ctx.engine());
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = pd.src_desc();
  plan.dst_md = pd.dst_desc();
  plan.inplace_src = 0;
  md_t vec = plain_md({channels});
  std::vector<std::pair<int, ArgSource>> args = {{DNNL_ARG_SRC, ArgSource::src(0)},
                                                 {DNNL_ARG_MEAN, ArgSource::src(1)},
                                                 {DNNL_ARG_VARIANCE, ArgSource::src(2)},
                                                 {DNNL_ARG_DST, ArgSource::dst()}};
  plan.src_mds[1] = vec;
  plan.src_mds[2] = vec;
  if (has_scale) {
    plan.src_mds[3] = vec;
    args.push_back({DNNL_ARG_SCALE, ArgSource::src(3)});
  }
  if (has_shift) {
    plan.src_mds[4] = vec;
    args.push_back({DNNL_ARG_SHIFT, ArgSource::src(4)});
  }
  set_single_primitive(plan, pd, dnnl::batch_normalization_forward(pd), std::move(args),
                       "batch_norm");
  return plan;
}

std::optional<KernelPlan> build_layer_norm(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  auto normalized = ctx.ints_attr("normalized_shape");
  auto eps = ctx.float_attr("eps");
  if (!normalized || !eps) return std::nullopt;
  if (!x.is_tensor()) return ctx.not_implemented("a scalar input");
  const Shape& shape = x.shape();
  if (normalized->empty() || normalized->size() > shape.size()) {
    return ctx.fail("normalized_shape " + shape_to_string(*normalized) +
                    " does not fit the input " + shape_to_string(shape));
  }
  int64_t inner = 1;
  for (size_t i = 0; i < normalized->size(); ++i) {
    Dim d = shape[shape.size() - normalized->size() + i];
    if (d != (*normalized)[i]) {
      return ctx.fail("normalized_shape " + shape_to_string(*normalized) +
                      " does not match the input's trailing dims " + shape_to_string(shape));
    }
    inner *= d;
  }
  int64_t rows = 1;
  for (size_t i = 0; i + normalized->size() < shape.size(); ++i) rows *= shape[i];
  const bool has_scale = ctx.operand(1).is_tensor();  // operands: input, weight, bias
  const bool has_shift = ctx.operand(2).is_tensor();
  auto flags = normalization_flags::none;
  if (has_scale) flags |= normalization_flags::use_scale;
  if (has_shift) flags |= normalization_flags::use_shift;
  md_t data = plain_md({rows, inner});
  dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                               static_cast<float>(*eps), flags);
  dnnl::layer_normalization_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(),
                                                       ctx.engine());
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = data;
  plan.dst_md = plain_md(ctx.out().shape);
  plan.inplace_src = 0;
  std::vector<std::pair<int, ArgSource>> args = {{DNNL_ARG_SRC, ArgSource::src(0)},
                                                 {DNNL_ARG_DST, ArgSource::dst(data)}};
  if (has_scale) {
    plan.src_mds[1] = plain_md({inner});
    args.push_back({DNNL_ARG_SCALE, ArgSource::src(1)});
  }
  if (has_shift) {
    plan.src_mds[2] = plain_md({inner});
    args.push_back({DNNL_ARG_SHIFT, ArgSource::src(2)});
  }
  set_single_primitive(plan, pd, dnnl::layer_normalization_forward(pd), std::move(args),
                       "layer_norm");
  return plan;
}

}  // namespace graft::runtime
