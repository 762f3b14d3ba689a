// The kernel builders of runtime/kernels/, one per op family; kernel_table.cpp maps the
// registry's op families (engine/ops/op_facts.h) to them. Each returns nullopt after reporting to the context's diagnostics.
#pragma once

#include "runtime/kernel.h"

namespace graft::runtime {

std::optional<KernelPlan> build_conv2d(KernelContext& ctx);        // conv.cpp
std::optional<KernelPlan> build_conv_nd(KernelContext& ctx);       // conv_nd.cpp
std::optional<KernelPlan> build_conv_transpose(KernelContext& ctx);  // conv_transpose.cpp
std::optional<KernelPlan> build_linear(KernelContext& ctx);        // linear.cpp
std::optional<KernelPlan> build_matmul(KernelContext& ctx);        // linear.cpp
std::optional<KernelPlan> build_batch_norm(KernelContext& ctx);    // norm.cpp
std::optional<KernelPlan> build_layer_norm(KernelContext& ctx);    // norm.cpp
std::optional<KernelPlan> build_eltwise(KernelContext& ctx);       // eltwise.cpp
std::optional<KernelPlan> build_binary(KernelContext& ctx);        // binary.cpp
std::optional<KernelPlan> build_pool2d(KernelContext& ctx);        // pooling.cpp
std::optional<KernelPlan> build_adaptive_pool2d(KernelContext& ctx);  // pooling.cpp
std::optional<KernelPlan> build_view(KernelContext& ctx);          // shape_ops.cpp
std::optional<KernelPlan> build_alias(KernelContext& ctx);         // shape_ops.cpp
std::optional<KernelPlan> build_permute(KernelContext& ctx);       // shape_ops.cpp
std::optional<KernelPlan> build_strided(KernelContext& ctx);       // shape_ops.cpp: slice and select views, else the fallback
std::optional<KernelPlan> build_cat(KernelContext& ctx);           // concat.cpp
std::optional<KernelPlan> build_reduce(KernelContext& ctx);        // reduce.cpp
std::optional<KernelPlan> build_softmax(KernelContext& ctx);       // softmax.cpp
std::optional<KernelPlan> build_pool3d(KernelContext& ctx);        // pooling.cpp
std::optional<KernelPlan> build_adaptive_pool3d(KernelContext& ctx);  // pooling.cpp
std::optional<KernelPlan> build_pad(KernelContext& ctx);           // pad.cpp
std::optional<KernelPlan> build_attention(KernelContext& ctx);     // attention.cpp
/// The plain-layout fallback: runs the reference kernel (eval/reference.h) of the node's
/// op. For ops and cases oneDNN has no primitive for (erf, pow of two tensors, adaptive
/// pooling with uneven windows, …).
std::optional<KernelPlan> build_fallback(KernelContext& ctx);      // fallback.cpp

/// True if `node` (conv2d / conv2d_post) is a layer the conv kernel would try Winograd for:
/// 3x3, stride 1, dilation 1, no groups, at least 16 channels in and out.
bool is_winograd_shape(const Node& node);
/// True if this CPU has oneDNN's f32 Winograd kernels (AVX-512 in oneDNN 2.6).
bool cpu_has_winograd();

/// The plan of a convolution-like primitive (convolution or deconvolution forward): operand 0
/// read and the result written in the layouts `pd` chose, the weights (operand 1, its bytes
/// described by `weights`) and the bias (operand 2, if given) bound by bind_parameter. The
/// primitive's arguments go into `args` (conv.cpp).
KernelPlan conv_like_plan(const KernelContext& ctx, const dnnl::primitive_desc& pd,
                          const md_t& weights, std::vector<std::pair<int, ArgSource>>& args);

/// An eltwise kernel running `steps` over operand 0 in its delivered layout (the first step
/// out of place, the rest in place on dst); shared by eltwise.cpp and binary.cpp (scalars).
struct EltwiseStep;
std::optional<KernelPlan> build_eltwise_steps(KernelContext& ctx,
                                              const std::vector<EltwiseStep>& steps,
                                              size_t operand = 0);

}  // namespace graft::runtime
