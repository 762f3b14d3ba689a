// Element conversions between the dtypes the reference kernels of comparisons, selections and
// casts compute in — float32, int64 and bool (one byte, 0 or 1) — done the way torch converts
// on x86: a float truncates toward zero into int64, and NaN or a value beyond int64 becomes
// INT64_MIN (what cvttss2si gives and torch returns, where a C++ cast would be undefined);
// anything nonzero, NaN included, is true.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "eval/tensor.h"

namespace graft::eval {

/// True for the dtypes read_as and write_as handle.
inline bool is_cast_dtype(DType d) {
  return d == DType::kFloat32 || d == DType::kInt64 || d == DType::kBool;
}

inline int64_t float_to_int64(double v) {
  if (!(v >= -0x1p63 && v < 0x1p63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/// `v` (a float, an int64 or a bool) as a T (float, int64_t or bool), as torch converts it.
template <typename T, typename V>
T convert(V v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_same_v<T, int64_t> && std::is_floating_point_v<V>) {
    return float_to_int64(v);
  } else if constexpr (std::is_same_v<T, float> && std::is_same_v<V, double>) {
    // A double beyond float's range rounds to an infinity (the cast would be undefined).
    if (std::isfinite(v) && std::fabs(v) > FLT_MAX) return v > 0 ? INFINITY : -INFINITY;
    return static_cast<float>(v);
  } else {
    return static_cast<T>(v);
  }
}

/// Element `i` of `t` (float32, int64 or bool) as a T.
template <typename T>
T read_as(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kInt64: return convert<T>(static_cast<const int64_t*>(t.data())[i]);
    case DType::kBool: return convert<T>(static_cast<const uint8_t*>(t.data())[i] != 0);
    default: return convert<T>(static_cast<const float*>(t.data())[i]);
  }
}

/// Stores `v`, of out's element type (float, int64_t or bool), as element `i` of `out`.
template <typename T>
void write_as(Tensor& out, int64_t i, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    static_cast<uint8_t*>(out.data())[i] = v ? 1 : 0;
  } else {
    static_cast<T*>(out.data())[i] = v;
  }
}

/// Calls `f(T{})` with T the element type of `dtype` (float32 -> float, int64 -> int64_t,
/// bool -> bool); false for another dtype.
template <typename F>
bool with_cast_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32: f(float{}); return true;
    case DType::kInt64: f(int64_t{}); return true;
    case DType::kBool: f(bool{}); return true;
    default: return false;
  }
}

/// The bytes of one `dtype` element holding `value`, converted as torch's fill converts it
/// (int64 truncates toward zero, bool is value != 0); nullopt for a nonzero value of a dtype
/// other than float32, int64 and bool.
inline std::optional<std::vector<std::byte>> fill_element(DType dtype, double value) {
  std::vector<std::byte> bytes(dtype_size(dtype));
  if (value == 0 && !std::signbit(value)) return bytes;
  bool known = with_cast_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      bytes[0] = std::byte{convert<bool>(value) ? uint8_t{1} : uint8_t{0}};
    } else {
      T v = convert<T>(value);
      std::memcpy(bytes.data(), &v, sizeof v);
    }
  });
  if (!known) return std::nullopt;
  return bytes;
}

}  // namespace graft::eval
