// Elementwise unary ops on oneDNN's eltwise primitive: the op's formula (its registry row)
// as the steps activation.cpp gives. Eltwise takes any layout, so the input's layout (blocked
// after a convolution) passes through unchanged, and the result may overwrite the input when
// the input dies here (in-place). Formulas without an algorithm (erf; softplus with a small
// threshold or beta = 0) run the fallback.
#include "eval/node_formula.h"
#include "runtime/kernels/activation.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {

std::optional<KernelPlan> build_eltwise_steps(KernelContext& ctx,
                                              const std::vector<EltwiseStep>& steps,
                                              size_t operand) {
  KernelPlan plan = make_plan(ctx);
  md_t src = ctx.pass_through_md(operand);
  if (steps.empty()) {
    // An identity (clamp to the whole float range never reaches here; 'none' might).
    plan.output = KernelPlan::Output::kAlias;
    plan.src_mds[operand] = src;
    plan.dst_md = src;
    return plan;
  }
  auto kernel = std::make_unique<PrimitiveKernel>();
  md_t data = src;
  int src_index = static_cast<int>(operand);
  for (size_t i = 0; i < steps.size(); ++i) {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, steps[i].alg, data,
                                     steps[i].alpha, steps[i].beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(), ctx.engine());
    std::vector<std::pair<int, ArgSource>> args = {
        {DNNL_ARG_SRC, i == 0 ? ArgSource::src(src_index) : ArgSource::dst()},
        {DNNL_ARG_DST, ArgSource::dst()}};
    append_scratchpad_arg(args, pd);
    add_scratchpad(plan, pd);
    kernel->add(dnnl::eltwise_forward(pd), std::move(args));
    data = pd.dst_desc();
    if (i == 0) plan.impl = "eltwise " + impl_name(pd);
  }
  plan.src_mds[operand] = src;
  plan.dst_md = data;
  plan.inplace_src = src_index;
  plan.kernel = std::move(kernel);
  return plan;
}

std::optional<KernelPlan> build_eltwise(KernelContext& ctx) {
  if (!ctx.operand(0).is_tensor()) return ctx.not_implemented("a scalar input");
  std::string error;
  std::optional<eval::NodeFormula> formula =
      eval::node_formula(*ctx.node().schema(), ctx.node().attrs(), &error);
  if (!formula) return ctx.fail(error);
  auto steps = formula_steps(formula->op, formula->params.alpha, formula->params.beta);
  if (!steps) return build_fallback(ctx);
  return build_eltwise_steps(ctx, *steps);
}

}  // namespace graft::runtime
