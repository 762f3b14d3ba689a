// The reference interpreter's rounding noise (eval::RoundingNoise): a well-conditioned graph
// moves by about the noise, an ill-conditioned one (the kind fuzz_compile must not report as a
// wrong kernel) by far more, and a run repeats for a seed.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/io/model_json.h"
#include "eval/reference.h"

using namespace graft;

namespace {

/// relu(x), well conditioned; and x f32[2, 2] -> layer_norm over rows of 2 -> matmul with
/// itself -> layer_norm over rows of 2. When both rows of x fall, the first layer_norm gives
/// rows of about [1, -1], whose matmul entries cancel to u0 - u1 (the two rows' deviations
/// from 1, of the order of eps): the second layer_norm scales that difference up.
constexpr const char* kModel = R"({"format": "graft.model", "version": 1, "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2, 2], "dtype": "float32"}},
  {"name": "ln", "op": "call_function", "target": "layer_norm", "args": [{"node": "x"}, [2]]},
  {"name": "mm", "op": "call_function", "target": "matmul", "args": [{"node": "ln"}, {"node": "ln"}]},
  {"name": "well", "op": "call_function", "target": "relu", "args": [{"node": "x"}]},
  {"name": "ill", "op": "call_function", "target": "layer_norm", "args": [{"node": "mm"}, [2]]},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "well"}, {"node": "ill"}]]}]})";

/// log_softmax over one element: exactly 0 in torch and the reference, about 1e-6 in oneDNN.
constexpr const char* kZeroModel = R"({"format": "graft.model", "version": 1, "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1], "dtype": "float32"}},
  {"name": "ls", "op": "call_function", "target": "log_softmax", "args": [{"node": "x"}, 0]},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "ls"}]]}]})";

double max_relative_change(const eval::Tensor& a, const eval::Tensor& b) {
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    worst = std::max(worst, std::fabs(double(a.f32()[i]) - b.f32()[i]));
    scale = std::max(scale, std::fabs(double(b.f32()[i])));
  }
  return worst / scale;
}

}  // namespace

TEST_CASE("rounding noise moves a well-conditioned output by the noise, an ill-conditioned one by far more",
          "[runtime][reference]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(kModel, "noise.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  eval::Tensor x = eval::Tensor::from_floats({2, 2}, {1.8f, 0.2f, 0.8f, -0.6f});
  auto exact = eval::run_reference(*model->graph, {x}, diags);
  auto noisy = eval::run_reference(*model->graph, {x}, diags, eval::RoundingNoise{0x1.0p-20, 7});
  auto again = eval::run_reference(*model->graph, {x}, diags, eval::RoundingNoise{0x1.0p-20, 7});
  REQUIRE(exact);
  REQUIRE(noisy);
  REQUIRE(again);
  const double well = max_relative_change((*noisy)[0], (*exact)[0]);
  CHECK(well > 0);
  CHECK(well <= 0x1.0p-20 * 1.01);
  CHECK(max_relative_change((*noisy)[1], (*exact)[1]) > 1e-2);
  CHECK(max_relative_change((*again)[1], (*noisy)[1]) == 0);
}

TEST_CASE("rounding noise moves a result that cancels to 0, by an absolute amount",
          "[runtime][reference]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(kZeroModel, "zero.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  eval::Tensor x = eval::Tensor::from_floats({1}, {0.5f});
  auto exact = eval::run_reference(*model->graph, {x}, diags);
  auto noisy = eval::run_reference(*model->graph, {x}, diags, eval::RoundingNoise{0x1.0p-20, 3});
  REQUIRE(exact);
  REQUIRE(noisy);
  CHECK((*exact)[0].f32()[0] == 0.0f);
  CHECK((*noisy)[0].f32()[0] != 0.0f);
  CHECK(std::fabs((*noisy)[0].f32()[0]) <= 0x1.0p-20);
}
