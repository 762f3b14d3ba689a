// Elementwise unary ops on oneDNN's eltwise primitive. Eltwise takes any layout, so the
// input's layout (blocked after a convolution) passes through unchanged, and the result may
// overwrite the input when the input dies here (in-place). softplus with a small threshold
// (or beta = 0) runs the fallback.
#include <cfloat>
#include <cmath>

#include "runtime/kernels/activation.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

using dnnl::algorithm;

std::optional<std::vector<EltwiseStep>> steps_for(KernelContext& ctx) {
  const std::string& op = ctx.op();
  using Steps = std::vector<EltwiseStep>;
  if (op == "relu" || op == "relu6" || op == "hardswish" || op == "hardsigmoid" ||
      op == "silu" || op == "sigmoid" || op == "tanh") {
    return activation_steps(op, 0, 0);
  }
  if (op == "hardtanh") {
    auto lo = ctx.float_attr("min_val");
    auto hi = ctx.float_attr("max_val");
    if (!lo || !hi) return std::nullopt;
    return activation_steps("hardtanh", *lo, *hi);
  }
  if (op == "leaky_relu") {
    auto slope = ctx.float_attr("negative_slope");
    if (!slope) return std::nullopt;
    return activation_steps("leaky_relu", *slope, 0);
  }
  if (op == "elu") {
    auto alpha = ctx.float_attr("alpha");
    if (!alpha) return std::nullopt;
    return activation_steps("elu", *alpha, 0);
  }
  if (op == "gelu") {
    std::string approximate = "none";
    if (ctx.has_attr("approximate")) {
      auto a = ctx.str_attr("approximate");
      if (!a) return std::nullopt;
      approximate = *a;
    }
    if (approximate == "none") return activation_steps("gelu", 0, 0);
    if (approximate == "tanh") return activation_steps("gelu_tanh", 0, 0);
    return ctx.fail("approximate must be 'none' or 'tanh', got '" + approximate + "'");
  }
  if (op == "clamp") {
    // None bounds become the float range; clip is max(lo, min(hi, x)).
    auto lo = ctx.float_or("min", -FLT_MAX);
    auto hi = ctx.float_or("max", FLT_MAX);
    if (!lo || !hi) return std::nullopt;
    return Steps{{algorithm::eltwise_clip, static_cast<float>(*lo), static_cast<float>(*hi)}};
  }
  if (op == "sqrt") return Steps{{algorithm::eltwise_sqrt, 0, 0}};
  if (op == "rsqrt") return Steps{{algorithm::eltwise_pow, 1, -0.5f}};
  if (op == "exp") return Steps{{algorithm::eltwise_exp, 0, 0}};
  if (op == "log") return Steps{{algorithm::eltwise_log, 0, 0}};
  if (op == "neg") return Steps{{algorithm::eltwise_linear, -1, 0}};
  if (op == "reciprocal") return Steps{{algorithm::eltwise_pow, 1, -1}};
  if (op == "abs") return Steps{{algorithm::eltwise_abs, 0, 0}};
  return ctx.not_implemented("no eltwise algorithm for '" + op + "'");
}

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
  if (ctx.op() == "softplus") {
    auto beta = ctx.float_attr("beta");
    auto threshold = ctx.float_attr("threshold");
    if (!beta || !threshold) return std::nullopt;
    auto steps = softplus_steps(*beta, *threshold);
    if (!steps) return build_fallback(ctx);
    return build_eltwise_steps(ctx, *steps);
  }
  auto steps = steps_for(ctx);
  if (!steps) return std::nullopt;
  return build_eltwise_steps(ctx, *steps);
}

}  // namespace graft::runtime
