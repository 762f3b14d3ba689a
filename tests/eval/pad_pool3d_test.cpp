// The reference kernels of pad (every mode, negative pads, fill values in float32, int64 and
// bool) and of max_pool3d, avg_pool3d and adaptive_avg_pool3d against torch 1.13's values (each
// names the torch call), through the constant folder so that the results are compared exactly.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/eval/folding.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;

ConstantTensor arange12(Shape shape = {3, 4}) {  // torch.arange(12).reshape(shape)
  return int_constant(std::move(shape), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

/// (torch.arange(60.).reshape(1, 1, 3, 4, 5) * 7 % 23) - 11
ConstantTensor volume() {
  Floats v;
  for (int i = 0; i < 60; ++i) v.push_back(static_cast<float>(i * 7 % 23 - 11));
  return float_constant({1, 1, 3, 4, 5}, v);
}

AttrValue s(const char* text) { return AttrValue{std::string(text)}; }

}  // namespace

TEST_CASE("constant pad crops with negative pads and converts the fill value as torch does",
          "[eval][pad]") {
  // F.pad(torch.arange(12).reshape(3, 4), (-1, 2, 1, 0), value=-7)
  Folded a = fold("pad", {arange12()}, {{"pad", Ints{-1, 2, 1, 0}}, {"value", -7.0}});
  CHECK(a.shape() == Shape{4, 5});
  CHECK(a.i64() == Ints{-7, -7, -7, -7, -7, 1, 2, 3, -7, -7, 5, 6, 7, -7, -7, 9, 10, 11, -7, -7});
  // F.pad(x, (1, 0), value=-2.7): int64 truncates toward zero
  CHECK(fold("pad", {arange12()}, {{"pad", Ints{1, 0}}, {"value", -2.7}}).i64() ==
        Ints{-2, 0, 1, 2, 3, -2, 4, 5, 6, 7, -2, 8, 9, 10, 11});
  // F.pad(torch.tensor([[True, False]]), (1, 1, 1, 0), value=0.5)
  CHECK(fold("pad", {bool_constant({1, 2}, {1, 0})}, {{"pad", Ints{1, 1, 1, 0}}, {"value", 0.5}})
            .b8() == std::vector<int>{1, 1, 1, 1, 1, 1, 0, 1});
  // F.pad(torch.tensor([[1.5, -2.0]]), (1, 1), value=float('-inf')), and (0, 1) with nan
  CHECK(fold("pad", {float_constant({1, 2}, {1.5f, -2.0f})},
             {{"pad", Ints{1, 1}}, {"value", -INFINITY}})
            .f32() == Floats{-INFINITY, 1.5f, -2.0f, -INFINITY});
  Floats nan_filled =
      fold("pad", {float_constant({1, 2}, {1.5f, -2.0f})}, {{"pad", Ints{0, 1}}, {"value", NAN}})
          .f32();
  REQUIRE(nan_filled.size() == 3);
  CHECK(nan_filled[1] == -2.0f);
  CHECK(std::isnan(nan_filled[2]));
  // F.pad(torch.arange(4.), (-2, -2)): an empty result
  CHECK(fold("pad", {arange12({12})}, {{"pad", Ints{-6, -6}}}).shape() == Shape{0});
}

TEST_CASE("reflect, replicate and circular pad read the elements torch reads", "[eval][pad]") {
  const ConstantTensor x = arange12({1, 3, 4});
  // F.pad(torch.arange(12.).reshape(1, 3, 4), (2, 1, 1, 2), mode='reflect')
  Folded r = fold("pad", {x}, {{"pad", Ints{2, 1, 1, 2}}, {"mode", s("reflect")}});
  CHECK(r.shape() == Shape{1, 6, 7});
  CHECK(r.i64() == Ints{6,  5, 4, 5, 6,  7,  6,  2, 1, 0, 1, 2, 3, 2, 6, 5, 4, 5, 6, 7, 6,
                        10, 9, 8, 9, 10, 11, 10, 6, 5, 4, 5, 6, 7, 6, 2, 1, 0, 1, 2, 3, 2});
  // ... (-1, 2, 0, 0), mode='reflect': the crop comes first
  CHECK(fold("pad", {x}, {{"pad", Ints{-1, 2, 0, 0}}, {"mode", s("reflect")}}).i64() ==
        Ints{1, 2, 3, 2, 1, 5, 6, 7, 6, 5, 9, 10, 11, 10, 9});
  // ... (-2, 3, 0, 1), mode='replicate'
  CHECK(fold("pad", {x}, {{"pad", Ints{-2, 3, 0, 1}}, {"mode", s("replicate")}}).i64() ==
        Ints{2, 3, 3, 3, 3, 6, 7, 7, 7, 7, 10, 11, 11, 11, 11, 10, 11, 11, 11, 11});
  // F.pad(torch.arange(12).reshape(1, 1, 3, 4), (-1, 2, 2, 0), mode='circular'): torch wraps
  // around what the crop leaves
  Folded c =
      fold("pad", {arange12({1, 1, 3, 4})}, {{"pad", Ints{-1, 2, 2, 0}}, {"mode", s("circular")}});
  CHECK(c.shape() == Shape{1, 1, 5, 5});
  CHECK(c.i64() ==
        Ints{5, 6, 7, 5, 6, 9, 10, 11, 9, 10, 1, 2, 3, 1, 2, 5, 6, 7, 5, 6, 9, 10, 11, 9, 10});
  // ... (4, 4, 3, 3), mode='circular': a pad of the whole size
  Folded w =
      fold("pad", {arange12({1, 1, 3, 4})}, {{"pad", Ints{4, 4, 3, 3}}, {"mode", s("circular")}});
  CHECK(w.shape() == Shape{1, 1, 9, 12});
  Ints row_block;
  for (int rep = 0; rep < 3; ++rep) {
    for (int64_t row = 0; row < 3; ++row) {
      for (int k = 0; k < 3; ++k) {
        for (int64_t col = 0; col < 4; ++col) row_block.push_back(row * 4 + col);
      }
    }
  }
  CHECK(w.i64() == row_block);
}

TEST_CASE("pad refuses what torch refuses, with torch's reason", "[eval][pad]") {
  const ConstantTensor x = arange12({1, 3, 4});
  auto error_of = [&](const Ints& pad, const char* mode, std::optional<double> value = {}) {
    std::map<std::string, AttrValue> attrs = {{"pad", pad}, {"mode", s(mode)}};
    if (value) attrs["value"] = *value;
    Folded f = fold("pad", {x}, attrs);
    CHECK_FALSE(f.value);
    return f.error;
  };
  CHECK_THAT(error_of({4, 0}, "reflect"),
             Catch::Contains("reflect padding must be less than the dim's size, got (4, 0) in "
                             "dim 2 of size 4"));
  CHECK_THAT(error_of({-2, -2}, "replicate"), Catch::Contains("leaves 0 elements in dim 2"));
  CHECK_THAT(error_of({5, 0}, "circular"), Catch::Contains("wraps around more than once"));
  CHECK_THAT(error_of({-3, 2}, "circular"), Catch::Contains("wraps around more than once"));
  CHECK_THAT(error_of({-3, -2}, "constant"), Catch::Contains("crops more elements than there are"));
  CHECK_THAT(error_of({1, 1}, "reflect", 1.0),
             Catch::Contains("padding mode 'reflect' takes no value"));
  CHECK_THAT(error_of({1, 1}, "constant", INFINITY),
             Catch::Contains("value inf cannot be converted to int64 without overflow"));
  CHECK_THAT(error_of({1, 1, 1, 1, 1, 1, 1, 1}, "constant"),
             Catch::Contains("pads 4 dims, but input has 3"));
  CHECK_THAT(error_of({1}, "constant"), Catch::Contains("odd number of values"));
}

TEST_CASE("max_pool3d propagates NaN and honours dilation, padding and ceil_mode",
          "[eval][pool3d]") {
  // F.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), dilation=(1, 1, 2),
  //              ceil_mode=True)
  Folded m = fold("max_pool3d", {volume()},
                  {{"kernel_size", Ints{2, 3, 2}},
                   {"stride", Ints{1, 2, 2}},
                   {"padding", Ints{1, 1, 0}},
                   {"dilation", Ints{1, 1, 2}},
                   {"ceil_mode", true}});
  CHECK(m.shape() == Shape{1, 1, 4, 3, 2});
  CHECK(m.f32() ==
        Floats{3, 6, 4, 7, 2, 7, 5, 8, 6, 9, 4, 9, 7, 10, 8, 11, 6, 11, 7, 10, 8, 11, 6, 11});
  // x[0, 0, 0, 0, 0] = nan; F.max_pool3d(x, 2, stride=2)
  ConstantTensor with_nan = volume();
  float nan = NAN;
  std::vector<std::byte> bytes(with_nan.data, with_nan.data + with_nan.nbytes);
  std::memcpy(bytes.data(), &nan, sizeof nan);
  Floats got = fold("max_pool3d", {ConstantTensor::owned(DType::kFloat32, {1, 1, 3, 4, 5}, bytes)},
                    {{"kernel_size", Ints{2, 2, 2}}})
                   .f32();
  REQUIRE(got.size() == 4);
  CHECK(std::isnan(got[0]));
  CHECK(Floats(got.begin() + 1, got.end()) == Floats{10, 11, 11});
}

TEST_CASE("avg_pool3d divides as torch does: clipped windows, count_include_pad, divisor",
          "[eval][pool3d]") {
  // F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=True): the
  // ceil_mode window hanging over the padding divides by its part inside the padding
  Folded inc = fold("avg_pool3d", {volume()},
                    {{"kernel_size", Ints{3, 3, 3}},
                     {"stride", Ints{2, 2, 2}},
                     {"padding", Ints{1, 1, 1}},
                     {"ceil_mode", true}});
  CHECK(inc.shape() == Shape{1, 1, 2, 3, 3});
  CHECK(inc.f32() == Floats{-0.14814814925193787f, 0.18518517911434174f, 0.1111111119389534f,
                            0.9629629850387573f, 0.7777777910232544f, 0.9259259104728699f,
                            1.4444444179534912f, 0.5555555820465088f, 1.0f, -0.40740740299224854f,
                            -0.6296296119689941f, -0.14814814925193787f, 0.14814814925193787f,
                            -0.4444444477558136f, 0.9629629850387573f, 0.6111111044883728f,
                            -0.0555555559694767f, 1.4444444179534912f});
  // ... count_include_pad=False
  Folded exc = fold("avg_pool3d", {volume()},
                    {{"kernel_size", Ints{3, 3, 3}},
                     {"stride", Ints{2, 2, 2}},
                     {"padding", Ints{1, 1, 1}},
                     {"ceil_mode", true},
                     {"count_include_pad", false}});
  CHECK(exc.f32() == Floats{-0.5f, 0.4166666567325592f, 0.375f, 2.1666667461395264f,
                            1.1666666269302368f, 2.0833332538604736f, 6.5f, 1.6666666269302368f,
                            4.5f, -1.375f, -1.4166666269302368f, -0.5f, 0.3333333432674408f,
                            -0.6666666865348816f, 2.1666667461395264f, 2.75f, -0.1666666716337204f,
                            6.5f});
  // F.avg_pool3d(x, (2, 2, 3), stride=(1, 2, 2), divisor_override=5)
  CHECK(fold("avg_pool3d", {volume()},
             {{"kernel_size", Ints{2, 2, 3}},
              {"stride", Ints{1, 2, 2}},
              {"divisor_override", int64_t{5}}})
            .f32() == Floats{-2.0f, -0.6000000238418579f, 0.4000000059604645f, 1.7999999523162842f,
                             -1.7999999523162842f, -0.4000000059604645f, 0.6000000238418579f,
                             2.0f});
}

TEST_CASE("adaptive_avg_pool3d averages torch's uneven windows", "[eval][pool3d]") {
  // F.adaptive_avg_pool3d(x, (2, 3, 2))
  Folded a = fold("adaptive_avg_pool3d", {volume()}, {{"output_size", Ints{2, 3, 2}}});
  CHECK(a.shape() == Shape{1, 1, 2, 3, 2});
  CHECK(a.f32() == Floats{-0.8333333134651184f, -0.25f, -0.3333333432674408f, 0.25f,
                          0.1666666716337204f, 0.75f, -0.75f, -0.1666666716337204f, -0.25f,
                          0.3333333432674408f, 0.25f, 0.8333333134651184f});
}

TEST_CASE("avg_pool3d and adaptive_avg_pool3d round as torch's float sums do", "[eval][pool3d]") {
  // x = torch.arange(60, dtype=torch.float32) / 7 - 4, shaped (1, 1, 3, 4, 5): sums of these
  // round differently in float and in double, and torch sums in float.
  Floats v;
  for (int i = 0; i < 60; ++i) v.push_back(static_cast<float>(i) / 7.0f - 4.0f);
  const ConstantTensor x = float_constant({1, 1, 3, 4, 5}, v);
  // F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True), as float.hex
  CHECK(fold("avg_pool3d", {x},
             {{"kernel_size", Ints{3, 3, 3}},
              {"stride", Ints{2, 2, 2}},
              {"padding", Ints{1, 1, 1}},
              {"ceil_mode", true}})
            .f32() == Floats{-0x1.45145p-1f, -0x1.b6db6ep-1f, -0x1.041042p-1f, -0x1.e79e8p-2f,
                             -0x1.24924ap-1f, -0x1.24924ap-2f, -0x1.451452p-4f, -0x1.861872p-5f,
                             0x1.041038p-6f, 0x1.b1706ep-3f, 0x1.a69a6ep-2f, 0x1.5ac056p-2f,
                             0x1.965964p-1f, 0x1.555556p+0f, 0x1.f7df7ep-1f, 0x1.1c71c8p-1f,
                             0x1.cf3cf2p-1f, 0x1.4d34d4p-1f});
  // F.adaptive_avg_pool3d(x, (2, 3, 2))
  CHECK(fold("adaptive_avg_pool3d", {x}, {{"output_size", Ints{2, 3, 2}}}).f32() ==
        Floats{-0x1.092492p+1f, -0x1.c9249p+0f, -0x1.5b6dbap+0f, -0x1.124926p+0f, -0x1.492492p-1f,
               -0x1.6db6dap-2f, 0x1.924926p-1f, 0x1.124926p+0f, 0x1.7ffffep+0f, 0x1.c92496p+0f,
               0x1.1b6db8p+1f, 0x1.3ffffep+1f});
}
