// softmax and log_softmax along one dim on oneDNN's softmax and logsoftmax primitives, in the
// input's layout and in place when the input dies here.
#include "runtime/kernels/families.h"

namespace graft::runtime {

std::optional<KernelPlan> build_softmax(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  if (!x.is_tensor()) return ctx.not_implemented("a scalar input");
  auto dim = ctx.int_attr("dim");
  if (!dim) return std::nullopt;
  const auto rank = static_cast<int64_t>(x.shape().size());
  int64_t axis = *dim < 0 ? *dim + std::max<int64_t>(rank, 1) : *dim;
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1)) {
    return ctx.fail("dim " + std::to_string(*dim) + " out of range");
  }
  md_t data = ctx.pass_through_md(0);
  KernelPlan plan = make_plan(ctx);
  plan.inplace_src = 0;
  std::vector<std::pair<int, ArgSource>> args = {{DNNL_ARG_SRC, ArgSource::src(0)},
                                                 {DNNL_ARG_DST, ArgSource::dst()}};
  if (ctx.op() == "log_softmax") {
    dnnl::logsoftmax_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                        static_cast<int>(axis));
    dnnl::logsoftmax_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(),
                                                ctx.engine());
    plan.src_mds[0] = pd.src_desc();
    plan.dst_md = pd.dst_desc();
    set_single_primitive(plan, pd, dnnl::logsoftmax_forward(pd), std::move(args), "log_softmax");
  } else {
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                     static_cast<int>(axis));
    dnnl::softmax_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(), ctx.engine());
    plan.src_mds[0] = pd.src_desc();
    plan.dst_md = pd.dst_desc();
    set_single_primitive(plan, pd, dnnl::softmax_forward(pd), std::move(args), "softmax");
  }
  return plan;
}

}  // namespace graft::runtime
