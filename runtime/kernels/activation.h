// Elementwise formulas as oneDNN eltwise steps, shared by the eltwise kernels and the post-ops
// of the fused conv2d_post / linear_post ops. Most formulas are one oneDNN algorithm; a few
// (hardsigmoid) need two steps because oneDNN 2.6 has no algorithm for them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace graft::runtime {

struct EltwiseStep {
  dnnl::algorithm alg;
  float alpha = 0;
  float beta = 0;
};

/// The steps computing `formula` with its parameters (`alpha`, `beta`: as
/// eval/elementwise_formulas.h reads them), or nullopt where oneDNN 2.6 has no algorithm for
/// it (erf, softplus with a small threshold, binary formulas): those run the fallback. One
/// case per formula, so that a formula added without a row here fails to build (-Wswitch).
std::optional<std::vector<EltwiseStep>> formula_steps(Formula formula, double alpha, double beta);
/// The steps computing the fused-op activation `name` ('relu', 'gelu_tanh', …; see
/// fused_activations()) with its parameters; 'none' gives no steps, an unknown name or one
/// without an algorithm nullopt.
std::optional<std::vector<EltwiseStep>> activation_steps(const std::string& name, double alpha,
                                                         double beta);

/// Reads the `<prefix>activation`, `<prefix>alpha`, `<prefix>beta` attributes of a fused op
/// and returns its steps; nullopt after reporting if the name is unknown.
std::optional<std::vector<EltwiseStep>> fused_activation(KernelContext& ctx,
                                                         const std::string& prefix);
void append_post_ops(dnnl::post_ops& ops, const std::vector<EltwiseStep>& steps);

/// True if the post-op chain `act`, sum, `post_act` must not be given to oneDNN as one chain.
/// oneDNN 2.6.3's brgconv drops a relu that follows a sum when the activation before the sum
/// is a relu with a non-zero slope (leaky_relu): the result keeps negative values (reproduced
/// in conv_test). Such chains run the post-sum activation as a separate in-place eltwise.
bool must_split_post_ops(const std::vector<EltwiseStep>& act, bool has_sum,
                         const std::vector<EltwiseStep>& post_act);
/// Appends eltwise primitives computing `steps` in place on the kernel's dst (layout `dst`).
void append_eltwise_on_dst(PrimitiveKernel& kernel, KernelPlan& plan, const md_t& dst,
                           const std::vector<EltwiseStep>& steps);

}  // namespace graft::runtime
