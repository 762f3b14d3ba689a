// mean, sum, amax and amin over dims on oneDNN's reduction primitive. The reduced dims become 1 in
// the primitive's result; without keepdim the result is that tensor seen with those dims
// dropped (a free view, since the result is plain).
#include "runtime/kernels/families.h"

namespace graft::runtime {

std::optional<KernelPlan> build_reduce(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  if (!x.is_tensor()) return ctx.not_implemented("a scalar input");
  auto dims = ctx.ints_or_none("dim");
  auto keepdim = ctx.bool_attr("keepdim");
  if (!dims || !keepdim) return std::nullopt;
  const auto rank = static_cast<int64_t>(x.shape().size());
  Shape kept = x.shape();
  if (dims->empty()) {
    for (Dim& d : kept) d = 1;  // dim=None: reduce everything
  } else {
    for (int64_t d : *dims) {
      int64_t a = d < 0 ? d + rank : d;
      if (a < 0 || a >= rank) return ctx.fail("dim " + std::to_string(d) + " out of range");
      kept[static_cast<size_t>(a)] = 1;
    }
  }
  if (rank == 0) kept = {1};
  if (element_count(x.shape()).value_or(0) == 0) return build_fallback(ctx);
  // Every reduced dim has size 1 (a mean over a 1x1 spatial map): each result element is one
  // input element, so the result is a view. oneDNN rejects a reduction whose src and dst dims
  // are equal (invalid_arguments), which made such graphs fail to compile.
  if (kept == x.shape() && ctx.out().dtype == x.type.dtype) return build_view(ctx);
  auto alg = ctx.op() == "mean"   ? dnnl::algorithm::reduction_mean
             : ctx.op() == "amax" ? dnnl::algorithm::reduction_max
             : ctx.op() == "amin" ? dnnl::algorithm::reduction_min
                                  : dnnl::algorithm::reduction_sum;
  md_t src = ctx.pass_through_md(0);
  md_t dst = plain_md(kept);
  dnnl::reduction::desc desc(alg, src, dst, 0.0f, 0.0f);
  dnnl::reduction::primitive_desc pd(desc, KernelContext::scratchpad_attr(), ctx.engine());
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = pd.src_desc();
  plan.dst_md = plain_md(ctx.out().shape);
  set_single_primitive(plan, pd, dnnl::reduction(pd),
                       {{DNNL_ARG_SRC, ArgSource::src(0)}, {DNNL_ARG_DST, ArgSource::dst(dst)}},
                       "reduce");
  return plan;
}

}  // namespace graft::runtime
