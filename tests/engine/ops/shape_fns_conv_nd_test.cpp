// conv1d's and conv3d's shape functions beyond the golden torch cases: symbolic dims, and the
// messages of the checks they share with conv2d, worded for their own ranks.
#include <catch2/catch.hpp>

#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }

}  // namespace

TEST_CASE("conv1d and conv3d keep a symbolic batch and compute each spatial dim",
          "[engine][shape_fns]") {
  CHECK(infer("conv1d", {"f32[N, 1, 800]", "f32[16, 1, 40]", "f32[16]"},
              {{"stride", ints({8})}, {"padding", ints({16})}})
            .str() == "float32[N, 16, 100]");
  CHECK(infer("conv1d", {"f32[N, 4, L]", "f32[8, 4, 3]"}).str() == "float32[N, 8, ?]");
  CHECK(infer("conv3d", {"f32[N, 3, 16, 112, 112]", "f32[64, 3, 3, 7, 7]"},
              {{"stride", ints({1, 2, 2})}, {"padding", ints({1, 3, 3})}})
            .str() == "float32[N, 64, 16, 56, 56]");
}

TEST_CASE("conv1d and conv3d explain what they expected", "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("conv1d", {"f32[1, 4, 9, 9]", "f32[8, 4, 3]"}),
       "input has 4 dims, expected 3 (N, C, L) or 2 (C, L)"},
      {infer("conv3d", {"f32[1, 4, 9, 9]", "f32[8, 4, 3, 3]"}),
       "weight has 4 dims, expected 5 (out_channels, in_channels/groups, kD, kH, kW)"},
      {infer("conv1d", {"f32[1, 4, 3]", "f32[8, 4, 5]"}),
       "kernel [5] with dilation [1] spans 5 but the padded input has 3 along dim 2 of "
       "[1, 4, 3]"},
      {infer("conv1d", {"f32[1, 4, 9]", "f32[6, 1, 5]"}, {{"groups", AttrValue{int64_t{4}}}}),
       "weight has 6 output channels, which groups=4 does not divide"},
      {infer("conv3d", {"f32[1, 3, 8, 8, 8]", "f32[4, 3, 3, 3, 3]"},
             {{"stride", ints({0, 1, 1})}}),
       "stride and dilation must be positive and padding non-negative, got stride=[0, 1, 1], "
       "padding=[0, 0, 0], dilation=[1, 1, 1]"},
  }));
  INFO(result.str());
  CHECK(result.str() == "error: " + message);
}
