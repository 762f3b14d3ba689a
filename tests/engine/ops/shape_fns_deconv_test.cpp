// conv_transpose1d/2d/3d's and group_norm's shape functions beyond the golden torch cases:
// symbolic dims, the messages of their checks, and a bad attribute located in model.json.
#include <catch2/catch.hpp>

#include "engine/io/model_json.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }
AttrValue one(int64_t value) { return AttrValue{value}; }

}  // namespace

TEST_CASE("conv_transpose computes (L - 1) * s - 2p + d(k - 1) + output_padding + 1",
          "[engine][shape_fns]") {
  CHECK(infer("conv_transpose2d", {"f32[N, 64, 14, 14]", "f32[64, 32, 2, 2]", "f32[32]"},
              {{"stride", ints({2, 2})}})
            .str() == "float32[N, 32, 28, 28]");
  CHECK(infer("conv_transpose2d", {"f32[1, 4, 5, 7]", "f32[4, 3, 3, 3]"},
              {{"stride", ints({2, 3})}, {"padding", ints({1, 0})},
               {"output_padding", ints({1, 2})}, {"groups", one(2)}})
            .str() == "float32[1, 6, 10, 23]");
  CHECK(infer("conv_transpose1d", {"f32[4, 9]", "f32[4, 2, 3]"},
              {{"dilation", ints({3})}, {"output_padding", ints({2})}})
            .str() == "float32[2, 17]");
  CHECK(infer("conv_transpose3d", {"f32[N, 4, D, 5, 6]", "f32[4, 2, 3, 3, 3]"},
              {{"stride", ints({2, 2, 2})}, {"padding", ints({1, 1, 1})}})
            .str() == "float32[N, 2, ?, 9, 11]");
}

TEST_CASE("conv_transpose explains what it expected", "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("conv_transpose2d", {"f32[1, 4, 5, 5]", "f32[4, 3, 3, 3]"},
             {{"output_padding", ints({1, 1})}}),
       "output_padding must be non-negative and smaller than the stride or the dilation, got "
       "output_padding=[1, 1], stride=[1, 1], dilation=[1, 1]"},
      {infer("conv_transpose2d", {"f32[1, 4, 5, 5]", "f32[4, 3, 3, 3]"}, {{"groups", one(3)}}),
       "weight has 4 input channels (dim 0), which groups=3 does not divide"},
      {infer("conv_transpose2d", {"f32[1, 5, 5, 5]", "f32[4, 3, 3, 3]"}),
       "input has 5 channels, weight [4, 3, 3, 3] expects 4 (its dim 0)"},
      {infer("conv_transpose2d", {"f32[1, 4, 5, 5]", "f32[4, 3, 3, 3]", "f32[4]"},
             {{"groups", one(2)}}),
       "bias has shape [4], expected [6] (the weight's dim 1 times groups)"},
      {infer("conv_transpose2d", {"f32[1, 4, 1, 1]", "f32[4, 3, 1, 1]"},
             {{"padding", ints({1, 1})}}),
       "the output would have -1 elements along dim 2 of [1, 4, 1, 1] (padding=[1, 1] removes "
       "more than the kernel adds)"},
      {infer("conv_transpose1d", {"f32[1, 4, 5, 5]", "f32[4, 3, 3]"}),
       "input has 4 dims, expected 3 (N, C, L) or 2 (C, L)"},
      {infer("conv_transpose3d", {"f32[1, 4, 5, 5, 5]", "f32[4, 3, 3, 3]"}),
       "weight has 4 dims, expected 5 (in_channels, out_channels/groups, kD, kH, kW)"},
      {infer("conv_transpose1d", {"f32[1, 4, 5]", "f32[4, 3, 3]"},
             {{"stride", ints({int64_t{1} << 62})}, {"output_padding", ints({1})}}),
       "stride, dilation and output_padding are out of range: the output overflows int64 in "
       "dim 2"},
  }));
  INFO(result.str());
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("group_norm keeps the input's shape and checks groups and parameters",
          "[engine][shape_fns]") {
  CHECK(infer("group_norm", {"f32[N, 32, H, W]", "f32[32]", "f32[32]"}, {{"num_groups", one(8)}})
            .str() == "float32[N, 32, H, W]");
  CHECK(infer("group_norm", {"f32[2, 6]"}, {{"num_groups", one(3)}}).str() == "float32[2, 6]");
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("group_norm", {"f32[2, 6, 3]"}, {{"num_groups", one(4)}}),
       "num_groups=4 does not divide the input's 6 channels (dim 1 of [2, 6, 3])"},
      {infer("group_norm", {"f32[2, 6, 3]"}, {{"num_groups", one(0)}}),
       "num_groups must be positive, got 0"},
      {infer("group_norm", {"f32[6]"}, {{"num_groups", one(3)}}),
       "input has 1 dims, expected at least 2 (N, C, …): channels are dim 1"},
      {infer("group_norm", {"f32[2, 6, 4]", "f32[5]"}, {{"num_groups", one(3)}}),
       "weight has shape [5], expected [6] (the input's channels, dim 1)"},
      {infer("group_norm", {"i64[2, 6, 4]"}, {{"num_groups", one(3)}}),
       "input has dtype int64, expected a floating-point dtype"},
  }));
  INFO(result.str());
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("a bad output_padding is reported at its node in model.json", "[engine][shape_fns]") {
  const std::string json = R"({"format": "graft.model", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1, 4, 5, 5], "dtype": "float32"}},
    {"name": "w", "op": "placeholder", "target": "w", "meta": {"shape": [4, 3, 3, 3], "dtype": "float32"}},
    {"name": "y", "op": "call_function", "target": "conv_transpose2d", "args": [{"node": "x"}, {"node": "w"}],
     "kwargs": {"stride": [2, 2], "output_padding": [2, 0]}},
    {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
  graft::DiagnosticEngine diags;
  CHECK_FALSE(graft::load_model_from_string(json, "deconv.json", ".", diags));
  CHECK_THAT(diags.render(),
             Catch::Contains("deconv.json: /nodes/2: error: node 'y' (conv_transpose2d): "
                             "output_padding must "
                             "be non-negative and smaller than the stride or the dilation, got "
                             "output_padding=[2, 0], stride=[2, 2], dilation=[1, 1]"));
}
