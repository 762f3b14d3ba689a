// Activations as oneDNN eltwise steps, shared by the eltwise kernels and the post-ops of the
// fused conv2d_post / linear_post ops. Most activations are one oneDNN algorithm; a few
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

/// The steps computing the fused-op activation `name` ('relu', 'relu6', 'hardtanh', 'gelu', …)
/// with its parameters (`alpha`, `beta`: leaky_relu slope, hardtanh min/max, elu alpha).
/// 'none' gives no steps; an unknown name gives nullopt.
std::optional<std::vector<EltwiseStep>> activation_steps(const std::string& name, double alpha,
                                                         double beta);
/// The activation names activation_steps() knows, for messages and tests.
const std::vector<std::string>& activation_names();

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
