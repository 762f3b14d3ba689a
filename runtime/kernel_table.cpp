// The kernel table: op family (engine/ops/op_facts.h) -> kernel builder (runtime/kernels/).
// A switch without a default, so a family added to the registry without a row here fails to
// build (-Wswitch); ops of one family share a builder, which reads what distinguishes them
// from the node's schema (an elementwise op's formula, a fused op's post-ops).
#include "runtime/executable.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {

KernelBuilder find_kernel(const OpSchema& op) {
  switch (op.family) {
    case OpFamily::kNone: return nullptr;
    case OpFamily::kConv2d:
    case OpFamily::kConv2dPost: return build_conv2d;
    case OpFamily::kLinear:
    case OpFamily::kLinearPost: return build_linear;
    case OpFamily::kMatmul: return build_matmul;
    case OpFamily::kBatchNorm: return build_batch_norm;
    case OpFamily::kLayerNorm: return build_layer_norm;
    case OpFamily::kSoftmax: return build_softmax;
    // Eltwise where oneDNN has an algorithm for the formula, else the fallback.
    case OpFamily::kUnary: return build_eltwise;
    // Binary, or eltwise with a scalar.
    case OpFamily::kBinary: return build_binary;
    case OpFamily::kPool2d: return build_pool2d;
    case OpFamily::kAdaptivePool2d: return build_adaptive_pool2d;
    case OpFamily::kReduce: return build_reduce;
    case OpFamily::kCat: return build_cat;
    case OpFamily::kView: return build_view;
    case OpFamily::kPermute: return build_permute;
    case OpFamily::kIdentity:
    case OpFamily::kDropout: return build_alias;
    // torch's coordinate mappings are not oneDNN resampling's (nearest: floor(dst * in / out)
    // against half-pixel rounding; scale factors given by the user): a plain loop.
    case OpFamily::kInterpolate: return build_fallback;
    case OpFamily::kConvNd: return build_conv_nd;
    // Exact graft loops (the reference kernels): oneDNN 2.6 has no select, cast to bool, scan
    // or arg-reduction, and its comparisons give u8 only over its own dtypes.
    case OpFamily::kCompare:
    case OpFamily::kLogical:
    case OpFamily::kWhere:
    case OpFamily::kFullLike:
    case OpFamily::kCast:
    case OpFamily::kCumsum:
    case OpFamily::kArgReduce: return build_fallback;
    // slice and select are free views of plain or strided data (shape_ops.cpp); the rest of
    // the family, and what cannot be viewed, is the fallback.
    case OpFamily::kStrided: return build_strided;
    // Plain loops on any dtype (the reference kernels); embedding reports an index out of
    // range at run time.
    case OpFamily::kRoll:
    case OpFamily::kGather:
    case OpFamily::kScatter: return build_fallback;
    case OpFamily::kConvTranspose: return build_conv_transpose;
    // oneDNN 2.6 has no group normalization: the reference's two-pass loop in double.
    case OpFamily::kGroupNorm: return build_fallback;
    case OpFamily::kPad: return build_pad;
    case OpFamily::kAttention: return build_attention;
    case OpFamily::kPool3d: return build_pool3d;
    case OpFamily::kAdaptivePool3d: return build_adaptive_pool3d;
    // A plain loop (the reference kernel); the constant folder computes most aranges first.
    case OpFamily::kArange: return build_fallback;
  }
  return nullptr;
}


bool has_runtime_kernel(const OpSchema& op) { return find_kernel(op) != nullptr; }

}  // namespace graft::runtime
