// The reference interpreter on float16 and bfloat16 graphs: each op computes in float and rounds
// its result once, as torch's CPU kernels do (bfloat16 results below are torch 1.13's bits),
// data movement copies the 16-bit elements as they are, and rounding noise perturbs half results
// by units of their own precision.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "engine/io/model_json.h"
#include "engine/ir/half.h"
#include "eval/reference.h"

using namespace graft;

namespace {

/// y = exp(x) * x and z = permute(x) of a [2, 2] input of `dtype`.
std::string model_text(const std::string& dtype) {
  return R"({"format": "graft.model", "version": 1, "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2, 2], "dtype": ")" + dtype + R"("}},
  {"name": "e", "op": "call_function", "target": "exp", "args": [{"node": "x"}]},
  {"name": "y", "op": "call_function", "target": "mul", "args": [{"node": "e"}, {"node": "x"}]},
  {"name": "z", "op": "call_function", "target": "permute", "args": [{"node": "x"}, [1, 0]]},
  {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}, {"node": "z"}]]}]})";
}

eval::Tensor half_tensor(DType dtype, const std::vector<float>& values) {
  eval::Tensor t = eval::Tensor::zeros(dtype, {2, 2});
  for (size_t i = 0; i < values.size(); ++i) {
    static_cast<uint16_t*>(t.data())[i] = float_to_half_bits(dtype, values[i]);
  }
  return t;
}

uint16_t bits(const eval::Tensor& t, int64_t i) { return static_cast<const uint16_t*>(t.data())[i]; }

}  // namespace

TEST_CASE("a bfloat16 graph gives torch's bits: each op in float, its result rounded once", "[eval][half]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(model_text("bfloat16"), "half.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  auto out = eval::run_reference(*model->graph, {half_tensor(DType::kBFloat16, {0.5f, -1.25f, 3.0f, 7.9f})}, diags);
  INFO(diags.render());
  REQUIRE(out);
  REQUIRE((*out)[0].dtype() == DType::kBFloat16);
  // torch.exp(x) * x for x = torch.tensor([0.5, -1.25, 3.0, 7.9], dtype=torch.bfloat16).
  const int16_t torch_bits[] = {16211, -16712, 17010, 18088};
  for (int64_t i = 0; i < 4; ++i) CHECK(static_cast<int16_t>(bits((*out)[0], i)) == torch_bits[i]);
  CHECK((*out)[0].value_at(3) == 21504.0);
}

TEST_CASE("a float16 graph rounds each result to float16, and a permute moves its bits", "[eval][half]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(model_text("float16"), "half.json", ".", diags);
  REQUIRE(model);
  const std::vector<float> x = {0.5f, -1.25f, 3.0f, 0.1f};
  eval::Tensor input = half_tensor(DType::kFloat16, x);
  auto out = eval::run_reference(*model->graph, {input}, diags);
  INFO(diags.render());
  REQUIRE(out);
  for (int64_t i = 0; i < 4; ++i) {
    const float xi = half_to_float(bits(input, i));
    const float e = half_to_float(float_to_half(std::exp(xi)));
    CHECK(bits((*out)[0], i) == float_to_half(e * xi));
  }
  const int64_t transposed[] = {0, 2, 1, 3};
  for (int64_t i = 0; i < 4; ++i) CHECK(bits((*out)[1], i) == bits(input, transposed[i]));
}

TEST_CASE("rounding noise moves half results by at most its units of their precision", "[eval][half]") {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(model_text("float16"), "half.json", ".", diags);
  REQUIRE(model);
  eval::Tensor input = half_tensor(DType::kFloat16, {0.5f, -1.25f, 3.0f, 0.1f});
  auto exact = eval::run_reference(*model->graph, {input}, diags);
  eval::RoundingNoise noise;
  noise.half_units = 2;
  noise.seed = 5;
  auto noisy = eval::run_reference(*model->graph, {input}, diags, noise);
  REQUIRE(exact);
  REQUIRE(noisy);
  bool moved = false;
  for (int64_t i = 0; i < 4; ++i) {
    const double a = (*exact)[0].value_at(i);
    const double b = (*noisy)[0].value_at(i);
    moved = moved || a != b;
    // Two units on exp's result and on the product's, each relative to max(|v|, 1).
    CHECK(std::fabs(a - b) <= 5 * 0x1p-10 * std::max(std::fabs(a), 1.0) * 3);
  }
  CHECK(moved);
  // float32 noise leaves half results alone.
  auto f32_only = eval::run_reference(*model->graph, {input}, diags, eval::RoundingNoise{0x1.0p-10, 5});
  REQUIRE(f32_only);
  for (int64_t i = 0; i < 4; ++i) CHECK(bits((*f32_only)[0], i) == bits((*exact)[0], i));
}
