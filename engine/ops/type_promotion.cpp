// Type promotion, after c10/core/ScalarType.h (promoteTypes) and
// aten/src/ATen/native/TypeProperties.cpp (ResultTypeState, combine_categories).
#include "engine/ops/type_promotion.h"

namespace graft {
namespace {

/// Position among the signed integers, for "the larger one wins".
int integer_rank(DType d) {
  switch (d) {
    case DType::kUInt8: return 0;
    case DType::kInt8: return 0;
    case DType::kInt16: return 1;
    case DType::kInt32: return 2;
    case DType::kInt64: return 3;
    default: return -1;
  }
}

int float_rank(DType d) {
  switch (d) {
    case DType::kFloat16: return 0;
    case DType::kBFloat16: return 0;
    case DType::kFloat32: return 1;
    case DType::kFloat64: return 2;
    default: return -1;
  }
}

std::optional<DType> promote(std::optional<DType> a, DType b) {
  return a ? promote_types(*a, b) : b;
}

/// torch's combine_categories: `lower` (a lower-priority group) only changes the result when
/// it is of a higher kind than `higher`.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating(*higher)) return higher;
  if (*higher == DType::kBool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace

bool is_integral(DType dtype) { return integer_rank(dtype) >= 0; }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kBool) return b;
  if (b == DType::kBool) return a;
  if (is_floating(a) && is_floating(b)) {
    if (float_rank(a) == float_rank(b)) return DType::kFloat32;  // float16 with bfloat16
    return float_rank(a) > float_rank(b) ? a : b;
  }
  if (is_floating(a)) return a;
  if (is_floating(b)) return b;
  // Both integers. uint8 and int8 meet in int16; otherwise the wider one (signed) wins.
  if (integer_rank(a) == integer_rank(b)) return DType::kInt16;
  return integer_rank(a) > integer_rank(b) ? a : b;
}

void ResultType::add(const TensorType& tensor) {
  if (tensor.rank() == 0) {
    zero_ = promote(zero_, tensor.dtype);
  } else {
    dim_ = promote(dim_, tensor.dtype);
  }
}

void ResultType::add(const Scalar& scalar) {
  // A Python float counts as the default dtype, a Python int as int64.
  wrapped_ = promote(wrapped_, scalar.is_int ? DType::kInt64 : kDefaultFloat);
}

std::optional<DType> ResultType::dtype() const { return combine(dim_, combine(zero_, wrapped_)); }

}  // namespace graft
