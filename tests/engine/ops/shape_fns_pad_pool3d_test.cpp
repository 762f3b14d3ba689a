// Shape functions of pad and the 3-D pools beyond the golden cases: symbolic dims, graft's
// wider pad (any rank in every mode, int64 in reflect mode), the wording of each rejection,
// and a bad pad located at its node when a model loads.
#include <catch2/catch.hpp>

#include "engine/io/model_json.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }
AttrValue str(const char* text) { return AttrValue{std::string(text)}; }

}  // namespace

TEST_CASE("pad and the 3-D pools keep symbols they do not touch", "[engine][shape_fns]") {
  CHECK(infer("pad", {"f32[N, 56, 56, 96]"}, {{"pad", ints({0, 0, 0, 7, 0, 7})}}).str() ==
        "float32[N, 63, 63, 96]");
  CHECK(infer("pad", {"f32[N, C, 8]"}, {{"pad", ints({0, 0, 1, 1})}}).str() == "float32[N, ?, 8]");
  CHECK(infer("pad", {"i64[2, 3, 4, 5, 6, 7]"},
              {{"pad", ints({1, 1, 1, 1, 1, 1, 1, 1})}, {"mode", str("reflect")}})
            .str() == "int64[2, 3, 6, 7, 8, 9]");
  CHECK(infer("pad", {"bool[3]"}, {{"pad", ints({2, 0})}, {"mode", str("circular")}}).str() ==
        "bool[5]");
  CHECK(infer("max_pool3d", {"f32[N, 64, 8, 56, 56]"},
              {{"kernel_size", ints({1, 3, 3})},
               {"stride", ints({1, 2, 2})},
               {"padding", ints({0, 1, 1})}})
            .str() == "float32[N, 64, 8, 28, 28]");
  CHECK(infer("avg_pool3d", {"f32[N, 8, T, 6, 6]"}, {{"kernel_size", ints({2, 2, 2})}}).str() ==
        "float32[N, 8, ?, 3, 3]");
  CHECK(infer("adaptive_avg_pool3d", {"f32[N, 512, 2, 7, 7]"}, {{"output_size", ints({1, 1, 1})}})
            .str() == "float32[N, 512, 1, 1, 1]");
}

TEST_CASE("pad and the 3-D pools explain a bad attribute", "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("pad", {"f32[2, 5]"}, {{"pad", ints({5, 0})}, {"mode", str("reflect")}}),
       "reflect padding must be less than the dim's size, got (5, 0) in dim 1 of size 5"},
      {infer("pad", {"f32[2, 3]"}, {{"pad", ints({-1, -2})}, {"mode", str("replicate")}}),
       "padding (-1, -2) leaves 0 elements in dim 1 of size 3 (replicate padding needs at "
       "least 1)"},
      {infer("pad", {"f32[2, 0]"}, {{"pad", ints({1, 1})}, {"mode", str("replicate")}}),
       "replicate padding has nothing to repeat in dim 1 of size 0"},
      {infer("pad", {"f32[2, 5]"}, {{"pad", ints({6, 0})}, {"mode", str("circular")}}),
       "circular padding (6, 0) wraps around more than once in dim 1 of size 5"},
      {infer("pad", {"f32[4]"}, {{"pad", ints({-3, -2})}}),
       "padding (-3, -2) crops more elements than there are in dim 0 of size 4"},
      {infer("pad", {"f32[4]"}, {{"pad", ints({1, 1, 1, 1})}}),
       "pad [1, 1, 1, 1] pads 2 dims, but input has 1"},
      {infer("pad", {"f32[4]"}, {{"pad", ints({1})}}),
       "pad [1] has an odd number of values (it holds (left, right) pairs)"},
      {infer("pad", {"f32[4]"}, {{"pad", ints({1, 1})}, {"mode", str("reflect")}, {"value", 2.0}}),
       "padding mode 'reflect' takes no value"},
      {infer("pad", {"i64[4]"}, {{"pad", ints({1, 1})}, {"value", 1e30}}),
       "value 1e+30 cannot be converted to int64 without overflow"},
      {infer("pad", {"f32[4]"}, {{"pad", ints({INT64_MAX, 1})}}),
       "padding (9223372036854775807, 1) overflows int64 in dim 0 of size 4"},
      {infer("max_pool3d", {"f32[1, 1, 8, 8]"}, {{"kernel_size", ints({2, 2, 2})}}),
       "output size is too small: input [1, 1, 8, 8] with kernel_size=[2, 2, 2] gives 0 along "
       "dim 1"},
      {infer("max_pool3d", {"f32[8, 8]"}, {{"kernel_size", ints({2, 2, 2})}}),
       "input has 2 dims, expected 5 (N, C, D, H, W) or 4 (C, D, H, W)"},
      {infer("avg_pool3d", {"i32[1, 1, 8, 8, 8]"}, {{"kernel_size", ints({2, 2, 2})}}),
       "input has dtype int32, expected a floating-point dtype"},
      {infer("avg_pool3d", {"f32[1, 1, 8, 8, 8]"},
             {{"kernel_size", ints({2, 2, 2})}, {"padding", ints({2, 0, 0})}}),
       "padding must be between 0 and half the kernel size, got padding=[2, 0, 0] for "
       "kernel_size=[2, 2, 2]"},
      {infer("adaptive_avg_pool3d", {"f32[1, 1, 4, 0, 4]"}, {{"output_size", ints({2, 2, 2})}}),
       "input [1, 1, 4, 0, 4] is empty in dim 3 (only the batch dim may be 0)"},
  }));
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("a pad torch refuses is reported at its node when a model loads",
          "[engine][shape_fns][model_json]") {
  std::string text = R"({"format": "graft.model", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1, 3, 4], "dtype": "float32"}},
    {"name": "y", "op": "call_function", "target": "pad", "args": [{"node": "x"}, [4, 0]],
     "kwargs": {"mode": "reflect"}},
    {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
  graft::DiagnosticEngine diags;
  CHECK_FALSE(graft::load_model_from_string(text, "model.json", ".", diags));
  CHECK(diags.render() ==
        "model.json: /nodes/1: error: node 'y' (pad): reflect padding must be less than the "
        "dim's size, got (4, 0) in dim 2 of size 4\n");
}
