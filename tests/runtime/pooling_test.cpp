// Pooling vs the reference: kernel/stride/padding/dilation, ceil_mode, count_include_pad,
// divisor_override, adaptive pools with even and uneven windows, plain and blocked inputs.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

struct PoolCase {
  Shape x;
  int64_t k, s, p;
  bool ceil;
  bool include_pad;  // avg only
  int64_t dilation;  // max only
};

std::string check_pool(const char* op, const PoolCase& c, bool after_conv) {
  GraphBuilder b;
  Node* x = b.input("x", c.x);
  Node* src = x;
  if (after_conv) {
    src = b.call("conv2d", {in(x), in(b.constant("w", {c.x[1], c.x[1], 1, 1}, 4))});
  }
  std::map<std::string, AttrValue> attrs = {{"kernel_size", c.k}, {"stride", c.s},
                                            {"padding", c.p}, {"ceil_mode", c.ceil}};
  if (std::string(op) == "max_pool2d") attrs["dilation"] = c.dilation;
  else attrs["count_include_pad"] = c.include_pad;
  b.output({b.call(op, {in(src)}, attrs)});
  return check_all_modes(b.graph(), random_inputs(b.graph(), 2), 1e-5, 1e-5);
}

}  // namespace

TEST_CASE("max_pool2d and avg_pool2d match the reference", "[runtime][pool]") {
  auto c = GENERATE(values<PoolCase>({
      {{1, 8, 8, 8}, 2, 2, 0, false, true, 1},
      {{2, 16, 7, 9}, 3, 2, 1, false, true, 1},   // ResNet stem pooling, odd sizes
      {{1, 4, 7, 7}, 3, 2, 1, true, true, 1},     // ceil_mode with padding
      {{1, 4, 6, 6}, 3, 2, 0, true, true, 1},     // ceil_mode without padding
      {{1, 4, 7, 7}, 3, 2, 1, true, false, 2},    // exclude pad; dilated max
      {{2, 3, 10, 5}, 2, 1, 1, false, false, 1},
      {{1, 5, 9, 9}, 3, 3, 1, false, true, 2},
  }));
  for (const char* op : {"max_pool2d", "avg_pool2d"}) {
    for (bool after_conv : {false, true}) {
      INFO(op << " x=" << shape_to_string(c.x) << " k=" << c.k << " s=" << c.s << " p=" << c.p
              << " ceil=" << c.ceil << " include_pad=" << c.include_pad << " conv=" << after_conv);
      CHECK(check_pool(op, c, after_conv) == "");
    }
  }
}

TEST_CASE("avg_pool2d honours divisor_override", "[runtime][pool]") {
  GraphBuilder b;
  Node* x = b.input("x", {1, 3, 6, 6});
  b.output({b.call("avg_pool2d", {in(x)},
                   {{"kernel_size", int64_t{2}}, {"divisor_override", int64_t{3}}})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 1)) == "");
}

TEST_CASE("adaptive pools match the reference for even and uneven windows", "[runtime][pool]") {
  struct AdaptiveCase {
    Shape x;
    int64_t oh, ow;
  };
  auto c = GENERATE(values<AdaptiveCase>({
      {{2, 16, 7, 7}, 1, 1},  // global average pooling (torchvision heads)
      {{1, 8, 8, 12}, 4, 3},  // even windows: oneDNN pooling
      {{1, 8, 10, 7}, 3, 4},  // uneven windows: fallback
      {{1, 4, 5, 5}, 7, 7},   // output larger than input
  }));
  for (const char* op : {"adaptive_avg_pool2d", "adaptive_max_pool2d"}) {
    GraphBuilder b;
    Node* x = b.input("x", c.x);
    Node* conv = b.call("conv2d", {in(x), in(b.constant("w", {c.x[1], c.x[1], 1, 1}, 3))});
    b.output({b.call(op, {in(conv)}, {{"output_size", std::vector<int64_t>{c.oh, c.ow}}})});
    INFO(op << " " << shape_to_string(c.x) << " -> " << c.oh << "x" << c.ow);
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 5)) == "");
  }
}
