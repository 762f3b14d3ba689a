// conv_transpose1d/2d/3d and group_norm vs the reference: odd sizes, batch 3, strides,
// padding, output_padding, dilation and groups, with and without bias, in every layout mode.
#include <catch2/catch.hpp>

#include <string>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

struct DeconvCase {
  Shape x;  // (N, C, spatial...)
  int64_t out_per_group, kernel, stride, pad, output_pad, dilation, groups;
  bool bias;
};

std::unique_ptr<Graph> deconv_graph(const DeconvCase& p, bool constant_weight) {
  const size_t k = p.x.size() - 2;
  GraphBuilder b;
  Node* x = b.input("x", p.x);
  Shape wshape = {p.x[1], p.out_per_group};
  wshape.insert(wshape.end(), k, p.kernel);
  Node* w = constant_weight ? b.constant("w", wshape, 5) : b.input("w", wshape);
  Node* bias = p.bias ? b.constant("b", {p.out_per_group * p.groups}, 6) : nullptr;
  auto each = [k](int64_t v) { return std::vector<int64_t>(k, v); };
  Node* y = b.call("conv_transpose" + std::to_string(k) + "d",
                   {in(x), in(w), bias ? in(bias) : Input::none()},
                   {{"stride", each(p.stride)}, {"padding", each(p.pad)},
                    {"output_padding", each(p.output_pad)}, {"dilation", each(p.dilation)},
                    {"groups", p.groups}});
  b.output({y});
  return b.take();
}

}  // namespace

TEST_CASE("conv_transpose matches the reference over strides, padding, groups and dilation",
          "[runtime][conv]") {
  auto p = GENERATE(values<DeconvCase>({
      {{1, 8, 5, 5}, 4, 2, 2, 0, 0, 1, 1, true},     // U-Net's 2x2 stride-2 upsampling
      {{3, 6, 7, 5}, 3, 3, 2, 1, 1, 1, 2, true},     // batch 3, odd sizes, output_padding, groups
      {{2, 4, 6, 9}, 5, 3, 1, 2, 1, 2, 1, false},    // dilation 2, output_padding below it
      {{1, 16, 4, 4}, 1, 4, 2, 1, 0, 1, 16, true},   // depthwise
      {{3, 5, 11}, 7, 5, 3, 2, 2, 1, 1, true},       // 1-d, stride 3
      {{2, 4, 3, 5, 4}, 2, 3, 2, 1, 1, 1, 2, true},  // 3-d, groups
      {{1, 3, 4, 3, 5}, 4, 2, 1, 0, 0, 2, 1, false}, // 3-d, dilation
      {{2, 4, 5, 5}, 6, 3, 2, 0, 1, 1, 1, true},     // output_padding beyond the padding
      {{2, 4, 9}, 6, 3, 1, 0, 1, 2, 1, false},       // the same with dilation, in 1-d
  }));
  INFO("input " << shape_to_string(p.x) << " kernel " << p.kernel << " stride " << p.stride
                << " groups " << p.groups);
  std::unique_ptr<Graph> g = deconv_graph(p, true);
  CHECK(check_all_modes(*g, random_inputs(*g, 13)) == "");
}

TEST_CASE("conv_transpose runs an unbatched input and a computed weight through the loop",
          "[runtime][conv]") {
  std::unique_ptr<Graph> computed = deconv_graph({{2, 4, 5, 6}, 3, 3, 2, 1, 1, 1, 2, true}, false);
  CHECK(check_all_modes(*computed, random_inputs(*computed, 17)) == "");
  GraphBuilder b;
  Node* x = b.input("x", {4, 5, 6});
  Node* w = b.constant("w", {4, 3, 3, 3}, 5);
  b.output({b.call("conv_transpose2d", {in(x), in(w)}, {{"stride", std::vector<int64_t>{2, 2}}})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 19)) == "");
}

TEST_CASE("group_norm matches the reference with 1, some and every channel per group",
          "[runtime][norm]") {
  auto [shape, groups, affine] = GENERATE(table<Shape, int64_t, bool>({
      {{3, 6, 5, 7}, 1, true},
      {{3, 6, 5, 7}, 3, false},
      {{2, 6, 9}, 6, true},
      {{1, 32, 4, 3, 5}, 8, true},
  }));
  GraphBuilder b;
  Node* x = b.input("x", shape);
  Node* w = affine ? b.constant("w", {shape[1]}, 1) : nullptr;
  Node* bias = affine ? b.constant("b", {shape[1]}, 2) : nullptr;
  b.output({b.call("group_norm", {in(x), w ? in(w) : Input::none(), bias ? in(bias) : Input::none()},
                   {{"num_groups", groups}})});
  INFO("input " << shape_to_string(shape) << " groups " << groups);
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3, 999, 1001)) == "");
}
