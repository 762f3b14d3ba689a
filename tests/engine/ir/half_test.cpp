// engine/ir/half.h: float16 and bfloat16 conversions give the bits torch gives (round to nearest
// even, overflow to inf, subnormals, NaN), and every 16-bit value survives a round trip.
#include "engine/ir/half.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace graft;

TEST_CASE("float16 from float rounds to nearest even, overflows to inf, keeps subnormals", "[ir][half]") {
  CHECK(float_to_half(1.0f) == 0x3c00);
  CHECK(float_to_half(0.1f) == 0x2e66);          // torch.tensor(0.1).half() bits
  CHECK(float_to_half(-2.0f) == 0xc000);
  CHECK(float_to_half(65504.0f) == 0x7bff);      // the largest finite value
  CHECK(float_to_half(65519.0f) == 0x7bff);      // below the midpoint to the next binade
  CHECK(float_to_half(65520.0f) == 0x7c00);      // the midpoint rounds (even) to inf
  CHECK(float_to_half(-1e9f) == 0xfc00);
  CHECK(float_to_half(0x1p-24f) == 0x0001);      // the smallest subnormal
  CHECK(float_to_half(0x1p-25f) == 0x0000);      // half of it ties to even: 0
  CHECK(float_to_half(0x1.8p-25f) == 0x0001);    // above the tie
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(float_to_half(1.0f + 0x1p-11f) == 0x3c00);                  // a tie rounds to even
  CHECK(float_to_half(1.0f + 0x1p-11f + 0x1p-20f) == 0x3c01);       // past the tie
  CHECK((float_to_half(NAN) & 0x7c00) == 0x7c00);
  CHECK((float_to_half(NAN) & 0x03ff) != 0);
}

TEST_CASE("bfloat16 from float rounds to nearest even and keeps NaN a NaN", "[ir][half]") {
  CHECK(float_to_bfloat16(1.0f) == 0x3f80);
  CHECK(float_to_bfloat16(0.1f) == 0x3dcd);      // torch.tensor(0.1).bfloat16() bits
  CHECK(float_to_bfloat16(1.0f + 0x1p-8f) == 0x3f80);   // a tie rounds to even
  CHECK(float_to_bfloat16(1.0f + 0x1.8p-8f) == 0x3f81);
  CHECK(float_to_bfloat16(3.4e38f) == 0x7f80);   // rounds past the largest finite value
  CHECK(std::isnan(bfloat16_to_float(float_to_bfloat16(NAN))));
}

TEST_CASE("every float16 and bfloat16 value converts to float and back to its own bits", "[ir][half]") {
  int mismatches = 0;
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = half_to_float(h);
    const float b = bfloat16_to_float(h);
    // A NaN keeps being a NaN (its payload may change); every other value is exact.
    if (std::isnan(f) ? !std::isnan(half_to_float(float_to_half(f))) : float_to_half(f) != h) ++mismatches;
    if (std::isnan(b) ? !std::isnan(bfloat16_to_float(float_to_bfloat16(b))) : float_to_bfloat16(b) != h) ++mismatches;
  }
  CHECK(mismatches == 0);
  CHECK(half_to_float(0x0001) == 0x1p-24f);
  CHECK(half_to_float(0x03ff) == 0x1.ff8p-15f);  // the largest subnormal
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(std::isinf(half_to_float(0xfc00)));
}
