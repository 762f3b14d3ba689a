// The 16-bit float formats of model.json's float16 and bfloat16, converted to and from float
// as torch converts them on CPU: rounding to nearest even, overflow to ±inf, tiny values to
// subnormals (float16), NaN kept NaN. Reference kernels compute half tensors in float and round
// each result once, as torch's CPU kernels do.
#pragma once

#include <bit>
#include <cstdint>

#include "engine/ir/dtype.h"

namespace graft {

/// True for float16 and bfloat16, the formats that are stored in 16 bits and computed in float.
inline bool is_half(DType dtype) { return dtype == DType::kFloat16 || dtype == DType::kBFloat16; }

/// IEEE binary16 from float.
inline uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent
  return static_cast<uint16_t>(half);
}

/// Float from IEEE binary16 (exact).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0) return std::bit_cast<float>(sign);
  // A subnormal: normalise it into float's range.
  int32_t e = 113;
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return std::bit_cast<float>(sign | (static_cast<uint32_t>(e) << 23) | ((mant & 0x3ffu) << 13));
}

/// bfloat16 (float's upper half) from float.
inline uint16_t float_to_bfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // NaN
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

/// Float from bfloat16 (exact).
inline float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

/// One element of a half `dtype` as float, and back.
inline float half_bits_to_float(DType dtype, uint16_t bits) {
  return dtype == DType::kFloat16 ? half_to_float(bits) : bfloat16_to_float(bits);
}
inline uint16_t float_to_half_bits(DType dtype, float f) {
  return dtype == DType::kFloat16 ? float_to_half(f) : float_to_bfloat16(f);
}

/// The gap between 1 and the next value of a float dtype (its machine epsilon).
inline double dtype_epsilon(DType dtype) {
  switch (dtype) {
    case DType::kFloat16: return 0x1p-10;
    case DType::kBFloat16: return 0x1p-7;
    case DType::kFloat64: return 0x1p-52;
    default: return 0x1p-23;
  }
}

}  // namespace graft
