// See value_condition.h. One typed loop per dtype: the element test runs on doubles, and the
// loop converts each element as it reads it (float16 and bfloat16 by their bits).
#include "engine/match/value_condition.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace graft {
namespace {

/// One number of the right-hand side and the distance within which an element equals it.
struct Target {
  double value = 0;
  double tolerance = 0;
};

Target target_of(const Term& t) {
  if (t.kind == Term::Kind::kBool) return {t.flag ? 1.0 : 0.0, 0};
  return {t.number, t.tolerance};
}

bool equals(double x, const Target& t) {
  return x == t.value || std::fabs(x - t.value) <= t.tolerance;
}

/// `x op rhs` for one element.
class ElementTest {
 public:
  ElementTest(CmpOp op, const Term& rhs) : op_(op) {
    if (op == CmpOp::kIn && rhs.kind == Term::Kind::kRange && rhs.items.size() == 2) {
      range_ = true;
      lo_ = rhs.items[0].number;
      hi_ = rhs.items[1].number;
    } else if (op == CmpOp::kIn) {
      for (const Term& item : rhs.items) targets_.push_back(target_of(item));
    } else {
      targets_.push_back(target_of(rhs));
    }
  }

  bool operator()(double x) const {
    const Target& t = targets_.empty() ? none_ : targets_[0];
    switch (op_) {
      case CmpOp::kEq: return equals(x, t);
      case CmpOp::kNe: return !equals(x, t);
      case CmpOp::kLt: return x < t.value;
      case CmpOp::kLe: return x <= t.value;
      case CmpOp::kGt: return x > t.value;
      case CmpOp::kGe: return x >= t.value;
      case CmpOp::kIn:
        if (range_) return lo_ <= x && x <= hi_;
        for (const Target& item : targets_) {
          if (equals(x, item)) return true;
        }
        return false;
    }
    return false;
  }

 private:
  CmpOp op_;
  bool range_ = false;
  double lo_ = 0, hi_ = 0;
  std::vector<Target> targets_;
  Target none_;
};

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double half_to_double(uint16_t h) {
  uint32_t sign = (h >> 15) & 1u, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);  // subnormal or zero
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

/// The first element (read as T, converted by `convert`) that fails `test`.
template <typename T, typename Convert>
std::optional<ElementCounterexample> scan(const ConstantTensor& tensor, const ElementTest& test,
                                          Convert convert) {
  int64_t n = static_cast<int64_t>(tensor.nbytes / sizeof(T));
  for (int64_t i = 0; i < n; ++i) {
    T raw;
    std::memcpy(&raw, tensor.data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    double x = convert(raw);
    if (!test(x)) return ElementCounterexample{i, x};
  }
  return std::nullopt;
}

template <typename T>
std::optional<ElementCounterexample> scan(const ConstantTensor& tensor, const ElementTest& test) {
  return scan<T>(tensor, test, [](T v) { return static_cast<double>(v); });
}

}  // namespace

std::optional<ElementCounterexample> first_failing_element(const ConstantTensor& tensor, CmpOp op,
                                                           const Term& rhs) {
  ElementTest test(op, rhs);
  switch (tensor.dtype()) {
    case DType::kFloat32: return scan<float>(tensor, test);
    case DType::kFloat64: return scan<double>(tensor, test);
    case DType::kFloat16: return scan<uint16_t>(tensor, test, half_to_double);
    case DType::kBFloat16:
      return scan<uint16_t>(tensor, test, [](uint16_t b) {
        return static_cast<double>(from_bits(static_cast<uint32_t>(b) << 16));
      });
    case DType::kInt64: return scan<int64_t>(tensor, test);
    case DType::kInt32: return scan<int32_t>(tensor, test);
    case DType::kInt16: return scan<int16_t>(tensor, test);
    case DType::kInt8: return scan<int8_t>(tensor, test);
    case DType::kUInt8: return scan<uint8_t>(tensor, test);
    case DType::kBool:
      return scan<uint8_t>(tensor, test, [](uint8_t b) { return b != 0 ? 1.0 : 0.0; });
  }
  return std::nullopt;
}

}  // namespace graft
