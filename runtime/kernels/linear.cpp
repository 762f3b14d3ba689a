// linear, the fused linear_post, and matmul. linear runs on oneDNN's inner product with the
// input seen as a 2-d [rows, in_features] matrix (a free view of a plain tensor) and its
// constant weight reordered once into the primitive's layout; matmul runs on oneDNN's matmul,
// which broadcasts batch dims, after torch's 1-d promotions.
#include "engine/ops/matmul_shapes.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/families.h"
#include "runtime/kernels/row_blocks.h"

namespace graft::runtime {

std::optional<KernelPlan> build_linear(KernelContext& ctx) {
  const bool fused = ctx.family() == OpFamily::kLinearPost;
  const Operand& x = ctx.operand(0);
  const Operand& w = ctx.operand(1);
  const Operand& bias = ctx.operand(2);
  const Operand& residual = ctx.operand(3);
  if (!x.is_tensor() || !w.is_tensor()) return ctx.not_implemented("a scalar input or weight");
  if (w.shape().size() != 2) return ctx.not_implemented("a weight that is not 2-d");
  std::vector<EltwiseStep> act, post_act;
  if (fused) {
    auto a = fused_activation(ctx, "");
    auto b = fused_activation(ctx, "post_");
    if (!a || !b) return std::nullopt;
    act = std::move(*a);
    post_act = std::move(*b);
  }
  const int64_t k = w.shape()[1];
  const int64_t n = w.shape()[0];
  int64_t rows = 1;  // the input's leading dims flattened
  for (size_t i = 0; i + 1 < x.shape().size(); ++i) rows *= x.shape()[i];
  md_t b_md = bias.is_tensor() ? plain_md({n}) : md_t();
  dnnl::primitive_attr attr = KernelContext::scratchpad_attr();
  dnnl::post_ops ops;
  append_post_ops(ops, act);
  if (residual.is_tensor()) ops.append_sum(1.0f);
  const bool split = must_split_post_ops(act, residual.is_tensor(), post_act);
  if (!split) append_post_ops(ops, post_act);
  attr.set_post_ops(ops);
  const InnerProductFactory make = [&](int64_t m, const md_t& w_md) {
    const md_t src_md = plain_md({m, k}), dst_md = plain_md({m, n});
    auto desc = bias.is_tensor()
                    ? dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference,
                                                        src_md, w_md, b_md, dst_md)
                    : dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference,
                                                        src_md, w_md, dst_md);
    return dnnl::inner_product_forward::primitive_desc(desc, attr, ctx.engine());
  };
  const auto pd = make(rows, w.constant ? any_md({n, k}) : plain_md({n, k}));

  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = pd.src_desc();
  plan.dst_md = plain_md(ctx.out().shape);
  std::vector<std::pair<int, ArgSource>> args = {{DNNL_ARG_SRC, ArgSource::src(0)},
                                                 {DNNL_ARG_DST, ArgSource::dst(pd.dst_desc())}};
  bind_parameter(ctx, plan, args, DNNL_ARG_WEIGHTS, w, 1, plain_md({n, k}), pd.weights_desc());
  if (bias.is_tensor()) bind_parameter(ctx, plan, args, DNNL_ARG_BIAS, bias, 2, b_md, pd.bias_desc());
  if (residual.is_tensor()) {
    plan.src_mds[3] = residual.md;
    plan.accumulate_src = 3;
  }
  if (split) {
    set_single_primitive(plan, pd, dnnl::inner_product_forward(pd), std::move(args), "linear");
    append_eltwise_on_dst(static_cast<PrimitiveKernel&>(*plan.kernel), plan, plan.dst_md, post_act);
    return plan;
  }
  const dnnl::inner_product_forward whole(pd);
  std::vector<std::pair<int, ArgSource>> params;
  for (const auto& arg : args) {
    if (arg.first == DNNL_ARG_WEIGHTS || arg.first == DNNL_ARG_BIAS) params.push_back(arg);
  }
  std::string key = "linear " + std::to_string(rows) + "x" + std::to_string(k) + "x" +
                    std::to_string(n) + (bias.is_tensor() ? " bias" : "") +
                    (residual.is_tensor() ? " residual" : "");
  for (const auto* steps : {&act, &post_act}) {
    for (const EltwiseStep& step : *steps) key += " " + std::to_string(static_cast<int>(step.alg));
  }
  if (auto blocks = row_block_kernel(make, {pd, whole, rows, k, n, params}, ctx.row_blocks(), key,
                                     plan.scratchpad_bytes)) {
    plan.kernel = std::move(blocks->kernel);
    plan.impl = "linear row blocks " + blocks->impl;
    return plan;
  }
  set_single_primitive(plan, pd, whole, std::move(args), "linear");
  return plan;
}

std::optional<KernelPlan> build_matmul(KernelContext& ctx) {
  const Operand& a = ctx.operand(0);
  const Operand& b = ctx.operand(1);
  if (!a.is_tensor() || !b.is_tensor()) return ctx.not_implemented("a scalar operand");
  // torch.matmul's promotions; the dims they add are dropped from the result, which the plain
  // views absorb for free.
  std::optional<MatmulShapes> shapes = promote_matmul(a.shape(), b.shape());
  if (!shapes) return ctx.not_implemented("a 0-d operand");

  dnnl::matmul::desc desc(plain_md(shapes->a), plain_md(shapes->b), plain_md(shapes->out));
  dnnl::matmul::primitive_desc pd(desc, KernelContext::scratchpad_attr(), ctx.engine());
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = pd.src_desc();
  plan.src_mds[1] = pd.weights_desc();
  plan.dst_md = plain_md(ctx.out().shape);
  set_single_primitive(plan, pd, dnnl::matmul(pd),
                       {{DNNL_ARG_SRC, ArgSource::src(0)},
                        {DNNL_ARG_WEIGHTS, ArgSource::src(1)},
                        {DNNL_ARG_DST, ArgSource::dst(pd.dst_desc())}},
                       "matmul");
  return plan;
}

}  // namespace graft::runtime
