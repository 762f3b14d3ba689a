// cat on oneDNN's concat primitive. Inputs are read in the layouts they come in and the
// primitive picks the result's layout, so a channel concat of blocked convolution outputs
// stays blocked (DenseNet, Inception) and costs no reorder.
#include "runtime/kernels/families.h"

namespace graft::runtime {

std::optional<KernelPlan> build_cat(KernelContext& ctx) {
  auto dim = ctx.int_attr("dim");
  if (!dim) return std::nullopt;
  const auto rank = static_cast<int64_t>(ctx.out().shape.size());
  int64_t axis = *dim < 0 ? *dim + rank : *dim;
  if (axis < 0 || axis >= rank) return ctx.fail("dim " + std::to_string(*dim) + " out of range");
  KernelPlan plan = make_plan(ctx);
  std::vector<md_t> srcs;
  std::vector<std::pair<int, ArgSource>> args;
  for (size_t i = 0; i < ctx.num_operands(); ++i) {
    const Operand& o = ctx.operand(i);
    if (!o.is_tensor()) return ctx.not_implemented("a scalar or None among the tensors");
    if (o.type.dtype != ctx.out().dtype) return ctx.not_implemented("a cat of mixed dtypes");
    if (element_count(o.shape()).value_or(0) == 0) continue;  // torch allows empty pieces
    plan.src_mds[i] = ctx.pass_through_md(i);
    args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(srcs.size()),
                    ArgSource::src(static_cast<int>(i))});
    srcs.push_back(plan.src_mds[i]);
  }
  if (srcs.empty()) return ctx.not_implemented("a cat of empty tensors");
  // Blocked layouts are for float32 (oneDNN's convolutions); other dtypes stay plain.
  const bool blocked = ctx.allow_blocked() && ctx.out().dtype == DType::kFloat32;
  md_t dst = blocked ? any_md(ctx.out().shape) : plain_md(ctx.out().shape, ctx.out().dtype);
  dnnl::concat::primitive_desc pd(dst, static_cast<int>(axis), srcs, ctx.engine(),
                                  KernelContext::scratchpad_attr());
  plan.dst_md = pd.dst_desc();
  args.push_back({DNNL_ARG_DST, ArgSource::dst()});
  set_single_primitive(plan, pd, dnnl::concat(pd), std::move(args), "cat");
  return plan;
}

}  // namespace graft::runtime
