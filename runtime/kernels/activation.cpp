// The formula -> oneDNN eltwise table (engine/ops/op_facts.h's Formula), for the unary ops
// and the fused ops' activations.
#include "runtime/kernels/activation.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace graft::runtime {

using dnnl::algorithm;

namespace {

// From this threshold up, torch's linear branch of softplus and log(1 + exp(y)) round to the
// same float: at y > 15, log(1 + exp(y)) - y < exp(-15) = 3.1e-7, under half an ulp of any
// such y (4.8e-7). Below it the branch changes results.
constexpr double kSoftplusThresholdInvisible = 15;

/// softplus(x, beta, threshold) = log(1 + exp(beta * x)) / beta, or x where beta * x >
/// threshold (torch). oneDNN 2.6's soft_relu is log(1 + exp(y)) and ignores alpha and beta
/// (dnnl_types.h), so linear steps scale around it, and it has no threshold, which only
/// matters below kSoftplusThresholdInvisible. nullopt: use the fallback.
std::optional<std::vector<EltwiseStep>> softplus_steps(double beta, double threshold) {
  const auto b = static_cast<float>(beta);
  // beta = 0 divides by zero (torch gives inf); leave that, and NaN or inf, to the fallback.
  if (!std::isnormal(b) || !(threshold >= kSoftplusThresholdInvisible)) return std::nullopt;
  std::vector<EltwiseStep> steps;
  if (b != 1) steps.push_back({algorithm::eltwise_linear, b, 0});
  steps.push_back({algorithm::eltwise_soft_relu, 0, 0});
  if (b != 1) steps.push_back({algorithm::eltwise_linear, 1 / b, 0});
  return steps;
}

}  // namespace

std::optional<std::vector<EltwiseStep>> formula_steps(Formula formula, double alpha,
                                                      double beta) {
  using enum Formula;
  using Steps = std::vector<EltwiseStep>;
  auto a = static_cast<float>(alpha);
  auto b = static_cast<float>(beta);
  switch (formula) {
    case kRelu: return Steps{{algorithm::eltwise_relu, 0, 0}};
    case kLeakyRelu: return Steps{{algorithm::eltwise_relu, a, 0}};
    case kRelu6: return Steps{{algorithm::eltwise_clip, 0, 6}};
    // Infinite bounds (clamp's None) become the float range; clip is max(lo, min(hi, x)).
    case kClamp:
      return Steps{{algorithm::eltwise_clip, std::max(a, -FLT_MAX), std::min(b, FLT_MAX)}};
    case kElu: return Steps{{algorithm::eltwise_elu, a, 0}};
    // oneDNN 2.6's hardswish is x * relu6(x + 3) / 6, exactly torch's.
    case kHardswish: return Steps{{algorithm::eltwise_hardswish, 0, 0}};
    // hardsigmoid = clip(x / 6 + 1/2, 0, 1): no single algorithm in 2.6.
    case kHardsigmoid:
      return Steps{{algorithm::eltwise_linear, 1.0f / 6, 0.5f}, {algorithm::eltwise_clip, 0, 1}};
    case kSilu: return Steps{{algorithm::eltwise_swish, 1, 0}};
    case kSigmoid: return Steps{{algorithm::eltwise_logistic, 0, 0}};
    case kTanh: return Steps{{algorithm::eltwise_tanh, 0, 0}};
    case kGelu: return Steps{{algorithm::eltwise_gelu_erf, 0, 0}};
    case kGeluTanh: return Steps{{algorithm::eltwise_gelu_tanh, 0, 0}};
    case kSqrt: return Steps{{algorithm::eltwise_sqrt, 0, 0}};
    // oneDNN 2.6's exp gives +inf for NaN and its pow(x, -0.5) gives 0 for -inf, where torch
    // gives NaN: both run on the fallback (docs/runtime.md, NaN).
    case kRsqrt: return std::nullopt;
    case kExp: return std::nullopt;
    case kLog: return Steps{{algorithm::eltwise_log, 0, 0}};
    case kNeg: return Steps{{algorithm::eltwise_linear, -1, 0}};
    case kReciprocal: return Steps{{algorithm::eltwise_pow, 1, -1}};
    case kAbs: return Steps{{algorithm::eltwise_abs, 0, 0}};
    case kSoftplus: return softplus_steps(alpha, beta);
    case kErf: return std::nullopt;  // no eltwise erf in oneDNN 2.6
    // Binary formulas: binary.cpp.
    case kAdd: case kSub: case kMul: case kDiv: case kDivTrunc: case kDivFloor: case kPow:
    case kMaximum: case kMinimum: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::vector<EltwiseStep>> activation_steps(const std::string& name, double alpha,
                                                         double beta) {
  bool known = false;
  std::optional<Formula> formula = activation_formula(name, &known);
  if (!known) return std::nullopt;
  if (!formula) return std::vector<EltwiseStep>{};  // 'none'
  return formula_steps(*formula, alpha, beta);
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
    for (const ActivationName& a : fused_activations()) {
      known += (known.empty() ? "'" : ", '") + std::string(a.name) + "'";
    }
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
