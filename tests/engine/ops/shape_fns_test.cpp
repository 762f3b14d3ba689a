// Shape functions beyond what torch can check: symbolic dims ("N" stays "N" where torch's rule
// does not need its value, "?" where it does) and the exact wording of rejections.
#include <catch2/catch.hpp>

#include "engine/ops/type_promotion.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }
AttrValue i(int64_t value) { return AttrValue{value}; }

}  // namespace

TEST_CASE("symbolic dims flow through convolution, pooling and matrix products",
          "[engine][shape_fns]") {
  CHECK(infer("conv2d", {"f32[N, 3, 224, 224]", "f32[64, 3, 7, 7]", nullptr},
              {{"stride", i(2)}, {"padding", i(3)}})
            .str() == "float32[N, 64, 112, 112]");
  CHECK(infer("conv2d", {"f32[N, 3, H, W]", "f32[8, 3, 3, 3]"}).str() == "float32[N, 8, ?, ?]");
  CHECK(infer("conv2d", {"f32[N, C, 8, 8]", "f32[8, 3, 3, 3]"}).str() == "float32[N, 8, 6, 6]");
  CHECK(infer("max_pool2d", {"f32[N, 64, H, 112]"}, {{"kernel_size", i(3)}, {"stride", i(2)},
                                                     {"padding", i(1)}})
            .str() == "float32[N, 64, ?, 56]");
  CHECK(infer("adaptive_avg_pool2d", {"f32[N, 512, H, W]"}, {{"output_size", i(1)}}).str() ==
        "float32[N, 512, 1, 1]");
  CHECK(infer("linear", {"f32[B, S, 64]", "f32[10, 64]", "f32[10]"}).str() ==
        "float32[B, S, 10]");
  CHECK(infer("linear", {"f32[B, K]", "f32[10, 64]"}).str() == "float32[B, 10]");
  CHECK(infer("matmul", {"f32[B, H, S, 64]", "f32[B, H, 64, S]"}).str() ==
        "float32[B, H, S, S]");
  CHECK(infer("matmul", {"f32[B, S, 64]", "f32[64]"}).str() == "float32[B, S]");
}

TEST_CASE("symbolic dims through shape ops keep the symbol when its value is not needed",
          "[engine][shape_fns]") {
  CHECK(infer("flatten", {"f32[N, 512, 1, 1]"}, {{"start_dim", i(1)}}).str() ==
        "float32[N, 512]");
  CHECK(infer("flatten", {"f32[N, 1, 1]"}).str() == "float32[N]");
  CHECK(infer("flatten", {"f32[N, 3]"}).str() == "float32[?]");
  CHECK(infer("flatten", {"f32[N, 0]"}).str() == "float32[0]");
  CHECK(infer("reshape", {"f32[N, 3, 4]"}, {{"shape", ints({-1, 12})}}).str() ==
        "float32[N, 12]");
  CHECK(infer("reshape", {"f32[N, 3, 4]"}, {{"shape", ints({-1, 6})}}).str() ==
        "float32[?, 6]");
  CHECK(infer("view", {"f32[N, 12]"}, {{"shape", ints({2, 6})}}).str() == "float32[2, 6]");
  CHECK(infer("permute", {"f32[B, S, D]"}, {{"dims", ints({0, 2, 1})}}).str() ==
        "float32[B, D, S]");
  CHECK(infer("transpose", {"f32[B, S, D]"}, {{"dim0", i(-1)}, {"dim1", i(0)}}).str() ==
        "float32[D, S, B]");
  CHECK(infer("unsqueeze", {"f32[N, 3]"}, {{"dim", i(-1)}}).str() == "float32[N, 3, 1]");
  // A symbol is assumed not to be 1.
  CHECK(infer("squeeze", {"f32[N, 1, 3]"}).str() == "float32[N, 3]");
  CHECK(infer("squeeze", {"f32[N, 1, 3]"}, {{"dim", i(0)}}).str() == "float32[N, 1, 3]");
  CHECK(infer("cat", {"f32[N, 3]", "f32[N, 5]"}, {{"dim", i(1)}}).str() == "float32[N, 8]");
  CHECK(infer("cat", {"f32[N, 3]", "f32[M, 3]"}).str() == "float32[?, 3]");
  CHECK(infer("cat", {"f32[N, C]", "f32[N, 3]"}).str() == "float32[?, 3]");
  CHECK(infer("cat", {"f32[N, 3]"}).str() == "float32[N, 3]");
}

TEST_CASE("symbolic dims in broadcasting, reductions and normalization", "[engine][shape_fns]") {
  CHECK(infer("add", {"f32[N, 1, 4]", "f32[3, 1]"}).str() == "float32[N, 3, 4]");
  CHECK(infer("mul", {"f32[N, C, H, W]", 0.5}).str() == "float32[N, C, H, W]");
  CHECK(infer("mean", {"f32[N, C, H, W]"}, {{"dim", ints({2, 3})}, {"keepdim", true}}).str() ==
        "float32[N, C, 1, 1]");
  CHECK(infer("sum", {"i32[N, C]"}, {{"dim", i(1)}}).str() == "int64[N]");
  CHECK(infer("softmax", {"f32[B, H, S, S]"}, {{"dim", i(-1)}}).str() == "float32[B, H, S, S]");
  CHECK(infer("layer_norm", {"f32[B, S, D]", "f32[768]", "f32[768]"},
              {{"normalized_shape", ints({768})}})
            .str() == "float32[B, S, D]");
  CHECK(infer("batch_norm", {"f32[N, C, H, W]", "f32[64]", "f32[64]"}).str() ==
        "float32[N, C, H, W]");
}

TEST_CASE("shape functions explain what they expected", "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("conv2d", {"f32[3, 8]", "f32[4, 3, 3, 3]"}),
       "input has 2 dims, expected 4 (N, C, H, W) or 3 (C, H, W)"},
      {infer("conv2d", {"f32[1, 4, 8, 8]", "f32[4, 3, 3, 3]"}),
       "input has 4 channels, weight [4, 3, 3, 3] with groups=1 expects 3"},
      {infer("conv2d", {"f32[1, 3, 2, 2]", "f32[4, 3, 3, 3]"}),
       "kernel [3, 3] with dilation [1, 1] spans 3 but the padded input has 2 along dim 2 of "
       "[1, 3, 2, 2]"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]", "f32[5]"}),
       "bias has shape [5], expected [4] (the weight's output channels)"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f64[4, 3, 3, 3]"}),
       "weight has dtype float64 but input has float32 (they must match)"},
      {infer("reshape", {"f32[2, 3]"}, {{"shape", ints({4, 2})}}),
       "cannot reshape [2, 3] (6 elements) into [4, 2] (8 elements)"},
      {infer("reshape", {"f32[2, 3]"}, {{"shape", ints({-1, -1})}}),
       "only one dim can be -1 in [-1, -1]"},
      {infer("reshape", {"f32[2, 3]"}, {{"shape", ints({4, -1})}}),
       "cannot reshape [2, 3] (6 elements) into [4, -1]"},
      {infer("softmax", {"f32[2, 3, 4, 5]"}, {{"dim", i(5)}}),
       "dim 5 out of range for rank 4 (expected -4 to 3)"},
      {infer("flatten", {"f32[2, 3, 4]"}, {{"start_dim", i(2)}, {"end_dim", i(1)}}),
       "start_dim 2 comes after end_dim 1 for rank 3"},
      {infer("permute", {"f32[2, 3]"}, {{"dims", ints({1, 1})}}),
       "dim 1 appears more than once in [1, 1]"},
      {infer("mean", {"i64[2, 3]"}), "input has dtype int64, expected a floating-point dtype"},
      {infer("add", {"f32[2, 3]", "f32[3, 2]"}), "shapes [2, 3] and [3, 2] cannot be broadcast"},
      {infer("add", {1, 2}), "at least one of input and other must be a tensor"},
      {infer("add", {"i64[2]", "i64[2]"}, {{"alpha", 0.5}}),
       "alpha must be an integer for a int64 result, got 0.5"},
      {infer("matmul", {"f32[2, 3]", "f32[4, 5]"}),
       "cannot multiply [2, 3] by [4, 5] (contracted dims 3 and 4 differ)"},
      {infer("linear", {"f32[2, 3]", "f32[4, 5]"}),
       "input has 3 features (last dim of [2, 3]), weight [4, 5] expects 5"},
      {infer("batch_norm", {"f32[2, 3, 4, 4]", "f32[4]", "f32[3]"}),
       "running_mean has shape [4], expected [3] (the input's channels, dim 1)"},
      {infer("batch_norm", {"f32[2, 3, 4, 4]", nullptr, nullptr}),
       "running_mean and running_var are required when training=False"},
      {infer("layer_norm", {"f32[2, 3, 4]"}, {{"normalized_shape", ints({3})}}),
       "normalized_shape [3] does not match the last 1 dims of the input [2, 3, 4]"},
      {infer("max_pool2d", {"f32[1, 1, 2, 2]"}, {{"kernel_size", i(3)}}),
       "output size is too small: input [1, 1, 2, 2] with kernel_size=[3, 3] gives 0 along dim 2"},
      {infer("max_pool2d", {"f32[1, 1, 8, 8]"}, {{"kernel_size", i(3)}, {"padding", i(2)}}),
       "padding must be between 0 and half the kernel size, got padding=[2, 2] for "
       "kernel_size=[3, 3]"},
      {infer("max_pool2d", {"f32[1, 1, 8, 8]"}, {{"kernel_size", ints({})}}),
       "kernel_size must have 2 values, got []"},
      {infer("cat", {"f32[2, 3]", "f32[2, 4]"}),
       "tensors[1] has shape [2, 4], expected [2, 3] except in dim 0"},
      {infer("cat", {}), "tensors must not be empty"},
      {infer("gelu", {"f32[2]"}, {{"approximate", std::string("fast")}}),
       "approximate must be 'none' or 'tanh', got 'fast'"},
      {infer("div", {"f32[2]", 2}, {{"rounding_mode", std::string("round")}}),
       "rounding_mode must be None, 'trunc' or 'floor', got 'round'"},
      {infer("clamp", {"f32[2]"}), "at least one of min and max must be given"},
      {infer("dropout", {"f32[2]"}, {{"p", 1.5}}), "p must be between 0 and 1, got 1.5"},
      {infer("relu", {2.0}), "input must be a tensor"},
  }));
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("result types follow torch's three priority groups", "[engine][shape_fns]") {
  using graft::DType;
  using graft::ResultType;
  using graft::TensorType;
  ResultType empty;
  CHECK(!empty.dtype());
  // A 0-d tensor or scalar only matters when it is of a higher kind than the dim'd tensors.
  ResultType r1;
  r1.add(TensorType{DType::kInt32, {2}});
  r1.add(TensorType{DType::kInt64, {}});
  CHECK(r1.dtype() == DType::kInt32);
  ResultType r2;
  r2.add(TensorType{DType::kFloat16, {2}});
  r2.add(graft::Scalar{0.5, false});
  CHECK(r2.dtype() == DType::kFloat16);
  ResultType r3;
  r3.add(TensorType{DType::kBool, {2}});
  r3.add(graft::Scalar{1, true});
  CHECK(r3.dtype() == DType::kInt64);
  ResultType r4;
  r4.add(graft::Scalar{1, true});
  r4.add(graft::Scalar{1.5, false});
  CHECK(r4.dtype() == graft::kDefaultFloat);
}

TEST_CASE("element counts: symbols are unknown, a zero dim is empty, overflow is unknown",
          "[engine][shape]") {
  using graft::Dim;
  using graft::element_count;
  const Dim big = Dim{1} << 62;
  const Dim n = graft::dim_symbol("N");
  CHECK(element_count({}) == 1);
  CHECK(element_count({2, 3, 4}) == 24);
  CHECK(element_count({0}) == 0);
  CHECK(element_count({big, 2}) == std::nullopt);  // 2^63 does not fit
  CHECK(element_count({big, big}) == std::nullopt);
  CHECK(element_count({big, big, 0}) == 0);  // empty, whatever the other dims
  CHECK(element_count({0, big, big}) == 0);
  CHECK(element_count({big, 1}) == big);
  CHECK(element_count({n, 3}) == std::nullopt);
  CHECK(element_count({n, 0}) == std::nullopt);  // a symbol first: unknown, not empty
  CHECK(element_count({3, n}) == std::nullopt);
}
