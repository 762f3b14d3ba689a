// The reference kernels propagate NaN where torch does: a max pooling window or an amax that
// holds a NaN gives NaN (std::max would drop it), and the other windows are untouched.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/io/model_json.h"
#include "eval/reference.h"

using namespace graft;

namespace {

/// x f32[1, 1, 2, 4] -> max_pool2d 2x2, adaptive_max_pool2d to 1x2, and amax over the last dim.
constexpr const char* kModel = R"({"format": "graft.model", "version": 1, "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1, 1, 2, 4], "dtype": "float32"}},
  {"name": "mp", "op": "call_function", "target": "max_pool2d", "args": [{"node": "x"}, 2]},
  {"name": "amp", "op": "call_function", "target": "adaptive_max_pool2d", "args": [{"node": "x"}, [1, 2]]},
  {"name": "am", "op": "call_function", "target": "amax", "args": [{"node": "x"}, [-1]]},
  {"name": "output", "op": "output", "target": "output",
   "args": [[{"node": "mp"}, {"node": "amp"}, {"node": "am"}]]}]})";

}  // namespace

TEST_CASE("max pooling and amax propagate a NaN to its window only, as torch does",
          "[runtime][reference]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(kModel, "nan.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  // The NaN sits in the second row's first column, after a larger value in its window.
  const float nan = std::nanf("");
  eval::Tensor x = eval::Tensor::from_floats({1, 1, 2, 4}, {5, 1, 2, 3, nan, 0, 7, 4});
  auto out = eval::run_reference(*model->graph, {x}, diags);
  INFO(diags.render());
  REQUIRE(out);
  // torch: max_pool2d -> [[nan, 7]], adaptive_max_pool2d -> [[nan, 7]], amax -> [5, nan].
  for (size_t i : {0, 1}) {
    INFO("output " << i);
    CHECK(std::isnan((*out)[i].f32()[0]));
    CHECK((*out)[i].f32()[1] == 7);
  }
  CHECK((*out)[2].f32()[0] == 5);
  CHECK(std::isnan((*out)[2].f32()[1]));
}
