// Ops that only move or relabel data. flatten, reshape, squeeze and unsqueeze are free views
// of a plain tensor (the result's shape comes from shape inference; a blocked input is
// reordered to plain first: a layout region border), and of a strided view where torch's
// view rule allows. permute, transpose, slice and select of plain or strided data are free
// strided views (runtime/strided_view.h); consumers that need dense data get one reorder.
// dropout, contiguous and clone are the input itself. All of them move elements of any dtype
// (runtime/dnnl_util.h: how int64 and bool are described); views are made of types with one
// dim per element, the others are copied by a reorder or the fallback loop.
#include "engine/ops/slice_bounds.h"
#include "runtime/kernels/families.h"
#include "runtime/strided_view.h"

namespace graft::runtime {

namespace {

/// The layout operand `x` is delivered in, when a view can be taken of it without a copy: its
/// strided view, or an unblocked layout (plain, nhwc, attention's); nullopt for a blocked
/// layout, a type described in s32 pairs, a 0-d tensor or one without elements.
const md_t* viewable_md(const Operand& x) {
  const md_t& md = x.strided.is_zero() ? x.md : x.strided;
  if (element_dims(x.type.dtype) != 0 || x.shape().empty() || !strided_layout(md)) return nullptr;
  for (Dim d : x.shape()) {
    if (d == 0) return nullptr;
  }
  return &md;
}

/// A view plan: operand 0 read as delivered (`from`), the result `layout` of its bytes,
/// `offset` bytes in; nullopt where oneDNN cannot describe the view (its check for overlapping
/// strides refuses some slices with a step that do not overlap).
std::optional<KernelPlan> view_plan(const KernelContext& ctx, const md_t& from,
                                    StridedLayout layout, size_t offset) {
  KernelPlan plan = make_plan(ctx);
  plan.output = KernelPlan::Output::kView;
  plan.src_mds[0] = from;
  try {
    plan.dst_md = view_md(std::move(layout), from.data_type());
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
  plan.view_offset = offset;
  plan.impl = is_plain(plan.dst_md) ? "view" : "strided view";
  return plan;
}

}  // namespace

std::optional<KernelPlan> build_view(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  if (!x.is_tensor()) return ctx.not_implemented("a scalar input");
  const Shape& out = ctx.out().shape;
  const md_t* from = viewable_md(x);
  if (!x.strided.is_zero() && from != nullptr && !out.empty()) {
    const std::vector<int64_t> dims(out.begin(), out.end());
    if (auto strides = reshape_strides(*strided_layout(*from), dims)) {
      if (auto plan = view_plan(ctx, *from, {dims, *strides}, 0)) return plan;
    }
  }
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
  const std::optional<std::vector<int64_t>> perm = permutation_of(ctx.node(), rank);
  if (!perm) {
    return ctx.fail("the dims do not permute the input's " + std::to_string(rank) + " dims");
  }
  if (rank == 0) return build_alias(ctx);
  if (const md_t* from = viewable_md(x)) {
    if (auto plan = view_plan(ctx, *from, permuted(*strided_layout(*from), *perm), 0)) return plan;
  }
  // Not viewable (a blocked layout, an 8-byte type): out[i_0, …] = in[… i_k at position
  // perm[k] …], so describe the plain input's bytes with the output's dims and the input's
  // strides permuted, then reorder that view to dense.
  const DType dtype = x.type.dtype;
  md_t in = plain_md(x.shape(), dtype);
  const auto& in_strides = in.data.format_desc.blocking.strides;
  dnnl::memory::dims out_dims, strides;
  for (int64_t p : *perm) {
    out_dims.push_back(x.shape()[static_cast<size_t>(p)]);
    strides.push_back(in_strides[p] >> element_dims(dtype));  // in elements, not s32 words
  }
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

std::optional<KernelPlan> build_strided(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  const bool select = ctx.op() == "select";
  const md_t* from_md = (ctx.op() == "slice" || select) && x.is_tensor() ? viewable_md(x) : nullptr;
  if (from_md == nullptr || ctx.out().shape.empty()) return build_fallback(ctx);
  const std::optional<StridedLayout> from = strided_layout(*from_md);
  const auto rank = static_cast<int64_t>(from->dims.size());
  auto dim = ctx.int_attr("dim");
  if (!dim) return std::nullopt;
  const int64_t d = *dim < 0 ? *dim + rank : *dim;
  if (d < 0 || d >= rank) return build_fallback(ctx);  // which reports it
  const auto at = static_cast<size_t>(d);
  StridedLayout layout = *from;
  int64_t first = 0;  // the element of dim d where the view starts
  if (select) {
    auto index = ctx.int_attr("index");
    if (!index) return std::nullopt;
    first = *index < 0 ? *index + from->dims[at] : *index;
    if (first < 0 || first >= from->dims[at]) return build_fallback(ctx);
    layout.dims.erase(layout.dims.begin() + d);
    layout.strides.erase(layout.strides.begin() + d);
  } else {
    auto step = ctx.int_attr("step");
    if (!step) return std::nullopt;
    auto bound = [&](const char* name) -> std::optional<int64_t> {
      const AttrValue* v = ctx.attr(name);
      const auto* i = v ? std::get_if<int64_t>(v) : nullptr;
      return i ? std::optional<int64_t>(*i) : std::nullopt;
    };
    auto [start, end] = slice_bounds(bound("start"), bound("end"), from->dims[at]);
    if (*step <= 0 || start >= end) return build_fallback(ctx);
    first = start;
    layout.dims[at] = (end - start - 1) / *step + 1;
    layout.strides[at] *= *step;
  }
  if (layout.dims != std::vector<int64_t>(ctx.out().shape.begin(), ctx.out().shape.end())) {
    return build_fallback(ctx);  // shape inference disagrees: let the loop report it
  }
  const size_t offset = static_cast<size_t>(first * from->strides[at]) *
                        dnnl::memory::data_type_size(x.md.data_type());
  if (auto plan = view_plan(ctx, *from_md, std::move(layout), offset)) return plan;
  return build_fallback(ctx);
}

}  // namespace graft::runtime
