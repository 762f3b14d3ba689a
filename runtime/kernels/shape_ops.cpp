// Ops that only move or relabel data. flatten, reshape, squeeze and unsqueeze are free views
// of a plain tensor (the result's shape comes from shape inference; a blocked input is
// reordered to plain first: a layout region border). dropout, contiguous and clone are the
// input itself. permute and transpose are one oneDNN reorder from a strided view. All of them
// move elements of any dtype (runtime/dnnl_util.h: how int64 and bool are described).
#include "runtime/kernels/families.h"

namespace graft::runtime {

std::optional<KernelPlan> build_view(KernelContext& ctx) {
  if (!ctx.operand(0).is_tensor()) return ctx.not_implemented("a scalar input");
  KernelPlan plan = make_plan(ctx);
  plan.output = KernelPlan::Output::kView;
  plan.src_mds[0] = plain_md(ctx.operand(0).shape(), ctx.operand(0).type.dtype);
  plan.dst_md = plain_md(ctx.out().shape, ctx.out().dtype);
  plan.impl = "view";
  return plan;
}

std::optional<KernelPlan> build_alias(KernelContext& ctx) {
  if (!ctx.operand(0).is_tensor()) return ctx.not_implemented("a scalar input");
  if (ctx.family() == OpFamily::kDropout) {
    auto training = ctx.bool_attr("training");
    if (!training) return std::nullopt;
    // In training, p = 0 zeroes nothing and scales by 1: the identity, exactly as torch.
    auto p = *training ? ctx.float_attr("p") : std::optional<double>(0.0);
    if (!p) return std::nullopt;
    if (*p != 0) {
      return ctx.not_implemented("dropout in training mode with p > 0 (export in eval mode)");
    }
  }
  // The result is never written in place while the input lives on: aliases share one value,
  // so the memory planner sees one lifetime covering every use of either name.
  KernelPlan plan = make_plan(ctx);
  plan.output = KernelPlan::Output::kAlias;
  plan.src_mds[0] = ctx.pass_through_md(0);
  plan.dst_md = plan.src_mds[0];
  plan.impl = "alias";
  return plan;
}

std::optional<KernelPlan> build_permute(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  if (!x.is_tensor()) return ctx.not_implemented("a scalar input");
  const auto rank = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  auto normalize = [&](int64_t d) { return d < 0 ? d + rank : d; };
  if (ctx.has_attr("dims")) {  // permute; transpose has dim0 and dim1
    auto dims = ctx.ints_attr("dims");
    if (!dims) return std::nullopt;
    if (static_cast<int64_t>(dims->size()) != rank) {
      return ctx.fail("dims " + shape_to_string(*dims) + " do not match the input's rank " +
                      std::to_string(rank));
    }
    for (size_t i = 0; i < dims->size(); ++i) perm[i] = normalize((*dims)[i]);
  } else {
    auto d0 = ctx.int_attr("dim0");
    auto d1 = ctx.int_attr("dim1");
    if (!d0 || !d1) return std::nullopt;
    int64_t a = normalize(*d0), b = normalize(*d1);
    if (a < 0 || a >= rank || b < 0 || b >= rank) return ctx.fail("dim out of range");
    std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  }
  // out[i_0, …] = in[… i_k at position perm[k] …]: describe the input's bytes with the
  // output's dims and the input's strides permuted, then reorder that view to dense.
  const DType dtype = x.type.dtype;
  md_t in = plain_md(x.shape(), dtype);
  const auto& in_strides = in.data.format_desc.blocking.strides;
  dnnl::memory::dims out_dims, strides;
  for (int64_t k = 0; k < rank; ++k) {
    int64_t p = perm[static_cast<size_t>(k)];
    if (p < 0 || p >= rank) return ctx.fail("dims must be a permutation of the input's dims");
    out_dims.push_back(x.shape()[static_cast<size_t>(p)]);
    strides.push_back(in_strides[p] >> element_dims(dtype));  // in elements, not s32 words
  }
  if (rank == 0) return build_alias(ctx);
  md_t view = strided_md(out_dims, strides, dtype);
  md_t dst = plain_md(ctx.out().shape, dtype);
  dnnl::reorder::primitive_desc pd(ctx.engine(), view, ctx.engine(), dst,
                                   KernelContext::scratchpad_attr());
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = in;
  plan.dst_md = dst;
  set_single_primitive(plan, pd, dnnl::reorder(pd),
                       {{DNNL_ARG_FROM, ArgSource::src(0, view)}, {DNNL_ARG_TO, ArgSource::dst()}},
                       "permute");
  return plan;
}

}  // namespace graft::runtime
