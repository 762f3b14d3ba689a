// The activation name -> oneDNN eltwise table.
#include "runtime/kernels/activation.h"

namespace graft::runtime {

using dnnl::algorithm;

std::optional<std::vector<EltwiseStep>> activation_steps(const std::string& name, double alpha,
                                                         double beta) {
  auto a = static_cast<float>(alpha);
  auto b = static_cast<float>(beta);
  if (name == "none") return std::vector<EltwiseStep>{};
  if (name == "relu") return std::vector<EltwiseStep>{{algorithm::eltwise_relu, 0, 0}};
  if (name == "leaky_relu") return std::vector<EltwiseStep>{{algorithm::eltwise_relu, a, 0}};
  if (name == "relu6") return std::vector<EltwiseStep>{{algorithm::eltwise_clip, 0, 6}};
  if (name == "hardtanh" || name == "clamp") {
    return std::vector<EltwiseStep>{{algorithm::eltwise_clip, a, b}};
  }
  if (name == "elu") return std::vector<EltwiseStep>{{algorithm::eltwise_elu, a, 0}};
  // oneDNN 2.6's hardswish is x * relu6(x + 3) / 6, exactly torch's.
  if (name == "hardswish") return std::vector<EltwiseStep>{{algorithm::eltwise_hardswish, 0, 0}};
  // hardsigmoid = clip(x / 6 + 1/2, 0, 1): no single algorithm in 2.6.
  if (name == "hardsigmoid") {
    return std::vector<EltwiseStep>{{algorithm::eltwise_linear, 1.0f / 6, 0.5f},
                                    {algorithm::eltwise_clip, 0, 1}};
  }
  if (name == "silu") return std::vector<EltwiseStep>{{algorithm::eltwise_swish, 1, 0}};
  if (name == "sigmoid") return std::vector<EltwiseStep>{{algorithm::eltwise_logistic, 0, 0}};
  if (name == "tanh") return std::vector<EltwiseStep>{{algorithm::eltwise_tanh, 0, 0}};
  if (name == "gelu") return std::vector<EltwiseStep>{{algorithm::eltwise_gelu_erf, 0, 0}};
  if (name == "gelu_tanh") return std::vector<EltwiseStep>{{algorithm::eltwise_gelu_tanh, 0, 0}};
  return std::nullopt;
}

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names = {
      "none", "relu", "leaky_relu", "relu6", "hardtanh", "clamp", "elu", "hardswish",
      "hardsigmoid", "silu", "sigmoid", "tanh", "gelu", "gelu_tanh"};
  return names;
}

std::optional<std::vector<EltwiseStep>> fused_activation(KernelContext& ctx,
                                                         const std::string& prefix) {
  std::optional<std::string> name = ctx.str_attr(prefix + "activation");
  std::optional<double> alpha = ctx.float_attr(prefix + "alpha");
  std::optional<double> beta = ctx.float_attr(prefix + "beta");
  if (!name || !alpha || !beta) return std::nullopt;
  auto steps = activation_steps(*name, *alpha, *beta);
  if (!steps) {
    std::string known;
    for (const std::string& n : activation_names()) known += (known.empty() ? "'" : ", '") + n + "'";
    return ctx.fail("unknown activation '" + *name + "' (expected one of " + known + ")");
  }
  return steps;
}

void append_post_ops(dnnl::post_ops& ops, const std::vector<EltwiseStep>& steps) {
  for (const EltwiseStep& s : steps) ops.append_eltwise(1.0f, s.alg, s.alpha, s.beta);
}

bool must_split_post_ops(const std::vector<EltwiseStep>& act, bool has_sum,
                         const std::vector<EltwiseStep>& post_act) {
  if (!has_sum || post_act.empty()) return false;
  for (const EltwiseStep& s : act) {
    if (s.alg == algorithm::eltwise_relu && s.alpha != 0) return true;
  }
  return false;
}

void append_eltwise_on_dst(PrimitiveKernel& kernel, KernelPlan& plan, const md_t& dst,
                           const std::vector<EltwiseStep>& steps) {
  for (const EltwiseStep& s : steps) {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, s.alg, dst, s.alpha,
                                     s.beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, KernelContext::scratchpad_attr(), cpu_engine());
    std::vector<std::pair<int, ArgSource>> args = {{DNNL_ARG_SRC, ArgSource::dst()},
                                                   {DNNL_ARG_DST, ArgSource::dst()}};
    append_scratchpad_arg(args, pd);
    add_scratchpad(plan, pd);
    kernel.add(dnnl::eltwise_forward(pd), std::move(args));
  }
}

}  // namespace graft::runtime
