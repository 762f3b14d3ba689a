// Facts about op families that several layers need alike.
#include "engine/ops/op_facts.h"

namespace graft {

bool family_moves_elements(OpFamily family) {
  switch (family) {
    case OpFamily::kView:
    case OpFamily::kPermute:
    case OpFamily::kIdentity:
    case OpFamily::kDropout:
    case OpFamily::kCat:
    case OpFamily::kStrided:
    case OpFamily::kRoll:
    case OpFamily::kGather:
    case OpFamily::kScatter: return true;
    default: return false;
  }
}

bool family_takes_any_dtype(OpFamily family) {
  switch (family) {
    case OpFamily::kView:
    case OpFamily::kPermute:
    case OpFamily::kIdentity:
    case OpFamily::kDropout:
    case OpFamily::kCat:
    // Exact on float32, int64 and bool; they refuse other dtypes themselves.
    case OpFamily::kCompare:
    case OpFamily::kLogical:
    case OpFamily::kWhere:
    case OpFamily::kFullLike:
    case OpFamily::kCast:
    case OpFamily::kCumsum:
    case OpFamily::kArgReduce: return true;
    case OpFamily::kStrided:
    case OpFamily::kRoll:
    case OpFamily::kGather:
    case OpFamily::kScatter: return true;
    case OpFamily::kPad: return true;
    case OpFamily::kArange: return true;
    // float32 operands with a bool or float32 mask; it refuses other dtypes itself.
    case OpFamily::kAttention: return true;
    case OpFamily::kNone:
    case OpFamily::kConv2d:
    case OpFamily::kConv2dPost:
    case OpFamily::kLinear:
    case OpFamily::kLinearPost:
    case OpFamily::kMatmul:
    case OpFamily::kBatchNorm:
    case OpFamily::kLayerNorm:
    case OpFamily::kSoftmax:
    case OpFamily::kUnary:
    case OpFamily::kBinary:
    case OpFamily::kPool2d:
    case OpFamily::kAdaptivePool2d:
    case OpFamily::kReduce:
    case OpFamily::kInterpolate:
    case OpFamily::kConvNd:
    case OpFamily::kConvTranspose:
    case OpFamily::kGroupNorm:
    case OpFamily::kPool3d:
    case OpFamily::kAdaptivePool3d: return false;
  }
  return false;
}

}  // namespace graft
