// interpolate's shape function beyond the golden torch cases: symbolic dims, and a message
// for each attribute combination torch rejects (graft states each one in its own words).
#include <catch2/catch.hpp>

#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }
AttrValue floats(std::vector<double> values) { return AttrValue{std::move(values)}; }
AttrValue str(const char* value) { return AttrValue{std::string(value)}; }

}  // namespace

TEST_CASE("interpolate keeps symbolic batch and channels and needs H and W only for a scale",
          "[engine][shape_fns]") {
  CHECK(infer("interpolate", {"f32[N, C, H, W]"}, {{"size", ints({15, 4})}}).str() ==
        "float32[N, C, 15, 4]");
  CHECK(infer("interpolate", {"f32[N, 21, H, 9]"}, {{"scale_factor", floats({2.0, 1.5})}})
            .str() == "float32[N, 21, ?, 13]");
  CHECK(infer("interpolate", {"f32[1, 2, 10, 9]"},
              {{"scale_factor", floats({0.29, 3.3})}, {"mode", str("bilinear")},
               {"align_corners", AttrValue{true}}})
            .str() == "float32[1, 2, 2, 29]");
}

TEST_CASE("interpolate rejects each bad attribute combination with its own message",
          "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("interpolate", {"f32[1, 3, 7, 13]"}),
       "exactly one of size and scale_factor must be given, got neither"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"},
             {{"size", ints({3, 3})}, {"scale_factor", floats({2.0, 2.0})}}),
       "exactly one of size and scale_factor must be given, got both"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"}, {{"size", ints({-2, 3})}}),
       "size must be positive, got [-2, 3]"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"}, {{"size", ints({5})}}),
       "size must have 2 values (H, W), got [5]"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"}, {{"scale_factor", floats({2, 2, 2})}}),
       "scale_factor must have 2 values (H, W), got [2.0, 2.0, 2.0]"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"}, {{"scale_factor", floats({0.1, 1.0})}}),
       "scale_factor 0.1 makes dim 2 of size 7 empty (output sizes must be positive)"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"}, {{"scale_factor", floats({-2.0, 1.0})}}),
       "scale_factor must be positive and finite, got -2.0"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"}, {{"scale_factor", floats({1.0, 1e300})}}),
       "scale_factor 1e+300 makes dim 3 of size 13 too large"},
      {infer("interpolate", {"f32[1, 3, 7, 13]"},
             {{"size", ints({3, 3})}, {"align_corners", AttrValue{false}}}),
       "align_corners applies to mode 'bilinear' only, got align_corners=False with mode "
       "'nearest'"},
      {infer("interpolate", {"f32[3, 7, 13]"}, {{"size", ints({3, 3})}}),
       "input has 3 dims, expected 4 (N, C, H, W)"},
      {infer("interpolate", {"f32[1, 3, 0, 13]"}, {{"size", ints({3, 3})}}),
       "input [1, 3, 0, 13] is empty in dim 2 (only the batch dim may be 0)"},
  }));
  INFO(result.str());
  CHECK(result.str() == "error: " + message);
}
