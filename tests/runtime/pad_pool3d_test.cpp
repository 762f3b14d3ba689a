// pad's row-copying kernel and the 3-D pools on oneDNN pooling vs the reference: every pad
// mode with positive, negative and zero pads on float32, int64 and bool, inputs read from a
// blocked convolution; max/avg/adaptive pooling over (N, C, D, H, W) with ceil_mode,
// count_include_pad, divisor_override, dilation and uneven adaptive windows.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;

struct PadCase {
  const char* mode;
  Ints pad;
};

const std::vector<PadCase> kPadCases = {
    {"constant", {1, 2}},
    {"constant", {0, 0, 2, -1}},              // the last dim untouched: rows copied whole
    {"constant", {-1, 3, 1, 1, 0, 2, 1, 0}},  // every dim, with a crop
    {"constant", {-2, -2, -1, 0}},            // crops only
    {"reflect", {2, 1, 1, 2}},
    {"reflect", {-1, 3, 0, 0, 2, 2}},
    {"replicate", {3, 0, 0, 4}},
    {"replicate", {-2, 5, 1, 1, 0, 1}},
    {"circular", {4, 1, 2, 2}},
    {"circular", {-1, 2, 0, 0, 1, 3}},
    {"circular", {0, 0, 0, 0, 1, 1, 0, 0}},  // an outer dim only
};

}  // namespace

TEST_CASE("pad matches the reference in every mode on float32, int64 and bool", "[runtime][pad]") {
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kBool}) {
    for (const PadCase& c : kPadCases) {
      GraphBuilder b;
      Node* x = b.input("x", {2, 4, 5, 6}, dtype);
      std::map<std::string, AttrValue> attrs = {{"pad", c.pad}, {"mode", std::string(c.mode)}};
      if (std::string(c.mode) == "constant") attrs["value"] = 3.0;
      b.output({b.call("pad", {in(x)}, attrs)});
      INFO(dtype_name(dtype) << " " << c.mode << " " << attr_to_string(AttrValue{c.pad}));
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 7, -1, 1, 100)) == "");
    }
  }
}

TEST_CASE("pad fills non-finite values and reads a blocked convolution output", "[runtime][pad]") {
  for (double value : std::vector<double>{-INFINITY, NAN, 0.0}) {
    GraphBuilder b;
    Node* x = b.input("x", {1, 16, 5, 5});
    Node* c = b.call("conv2d", {in(x), in(b.constant("w", {16, 16, 3, 3}, 1))});
    Node* p = b.call("pad", {in(c)}, {{"pad", Ints{1, 2, 0, 3}}, {"value", value}});
    b.output(
        {p, b.call("pad", {in(c)}, {{"pad", Ints{2, 2, 2, 2}}, {"mode", std::string("reflect")}})});
    INFO("value " << value);
    // NaN != NaN, so the NaN fill is checked on its own below.
    if (!std::isnan(value)) CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 2)) == "");
    DiagnosticEngine diags;
    auto exe = runtime::compile(b.graph(), {}, diags);
    REQUIRE(exe);
    auto out = exe->run(random_inputs(b.graph(), 2), diags);
    REQUIRE(out);
    const float* y = (*out)[0].f32();
    CHECK((std::isnan(value) ? std::isnan(y[0]) : y[0] == static_cast<float>(value)));  // corner
    CHECK((*out)[0].shape() == Shape{1, 16, 6, 6});
  }
}

TEST_CASE("max_pool3d and avg_pool3d match the reference", "[runtime][pool3d]") {
  struct Pool3dCase {
    Shape x;
    Ints k, s, p;
    bool ceil, include_pad;
    Ints dilation;
  };
  auto c = GENERATE(values<Pool3dCase>({
      {{2, 8, 4, 8, 8}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false, true, {1, 1, 1}},
      {{1, 8, 8, 14, 14}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, false, true, {1, 1, 1}},  // s3d stem
      {{1, 4, 7, 7, 7}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, true, true, {1, 1, 1}},     // fallback
      {{1, 4, 6, 7, 5}, {3, 2, 2}, {2, 1, 2}, {0, 1, 0}, true, false, {2, 1, 2}},
      {{1, 4, 5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, true, {1, 1, 1}},  // s3d branch
  }));
  for (const char* op : {"max_pool3d", "avg_pool3d"}) {
    for (bool after_conv : {false, true}) {
      GraphBuilder b;
      Node* x = b.input("x", c.x);
      Node* src = x;
      if (after_conv) {
        src = b.call("conv3d", {in(x), in(b.constant("w", {c.x[1], c.x[1], 1, 1, 1}, 4))});
      }
      std::map<std::string, AttrValue> attrs = {
          {"kernel_size", c.k}, {"stride", c.s}, {"padding", c.p}, {"ceil_mode", c.ceil}};
      if (std::string(op) == "max_pool3d")
        attrs["dilation"] = c.dilation;
      else
        attrs["count_include_pad"] = c.include_pad;
      b.output({b.call(op, {in(src)}, attrs)});
      INFO(op << " x=" << shape_to_string(c.x) << " conv=" << after_conv);
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3), 1e-5, 1e-5) == "");
    }
  }
}

TEST_CASE("avg_pool3d honours divisor_override and unbatched inputs", "[runtime][pool3d]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3, 6, 6, 6});
  Node* u = b.input("u", {3, 4, 5, 6});
  b.output({b.call("avg_pool3d", {in(x)},
                   {{"kernel_size", Ints{2, 2, 2}}, {"divisor_override", int64_t{3}}}),
            b.call("max_pool3d", {in(u)}, {{"kernel_size", Ints{2, 2, 2}}}),
            b.call("adaptive_avg_pool3d", {in(u)}, {{"output_size", Ints{2, 2, 3}}})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 1)) == "");
}

TEST_CASE("adaptive_avg_pool3d matches the reference for even and uneven windows",
          "[runtime][pool3d]") {
  struct AdaptiveCase {
    Shape x;
    Ints out;
  };
  auto c = GENERATE(values<AdaptiveCase>({
      {{2, 16, 2, 7, 7}, {1, 1, 1}},  // the video models' global pooling
      {{1, 8, 4, 8, 12}, {2, 4, 3}},  // even windows: oneDNN pooling
      {{1, 8, 5, 10, 7}, {3, 3, 4}},  // uneven windows: the reference loop
  }));
  GraphBuilder b;
  Node* x = b.input("x", c.x);
  Node* conv = b.call("conv3d", {in(x), in(b.constant("w", {c.x[1], c.x[1], 1, 1, 1}, 3))});
  b.output({b.call("adaptive_avg_pool3d", {in(conv)}, {{"output_size", c.out}})});
  INFO(shape_to_string(c.x));
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 5)) == "");
}
