// torch's type promotion (torch.result_type) for the dtypes graft knows: which dtype `x + y`,
// `x * 0.5` or `cat([a, b])` produces. Shape functions use it; constant folding can too.
#pragma once

#include <optional>
#include <vector>

#include "engine/ir/attr.h"
#include "engine/ir/dtype.h"
#include "engine/ir/shape.h"

namespace graft {

/// torch.promote_types: the smallest dtype both `a` and `b` convert to without losing their
/// kind (uint8 + int8 -> int16, float16 + bfloat16 -> float32, int64 + float16 -> float16).
DType promote_types(DType a, DType b);
bool is_integral(DType dtype);  // the integer dtypes, not bool

/// The default floating-point dtype (torch.get_default_dtype()): what integer inputs of
/// sqrt, sigmoid or true division produce, and the dtype of a Python float scalar.
constexpr DType kDefaultFloat = DType::kFloat32;

/// torch.result_type over several operands. torch ranks operands in three groups — tensors
/// with dims, 0-dim tensors, Python scalars — and a lower group only matters when it is of a
/// higher kind (bool < integer < floating): int32[2] + int64[] is int32, int64[2] + 0.5 is
/// float32, float16[2] + float64[] is float16.
class ResultType {
 public:
  void add(const TensorType& tensor);
  void add(const Scalar& scalar);
  /// The promoted dtype; nullopt if nothing was added.
  std::optional<DType> dtype() const;

 private:
  std::optional<DType> dim_;      // tensors with at least one dim
  std::optional<DType> zero_;     // 0-dim tensors
  std::optional<DType> wrapped_;  // Python scalars
};

}  // namespace graft
