// The reference kernels of conv_transpose1d/2d and group_norm against values computed by torch
// 1.13 (each torch call is in a comment above its values): stride, padding, output_padding,
// groups and dilation for the transposed convolution; 1, 2 and C groups and an input offset by
// 1000 for group_norm, whose statistics must not cancel.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/io/model_json.h"
#include "eval/reference.h"

using namespace graft;

namespace {

/// Runs `op`(operands..., **attrs) on the given tensors (placeholders t0, t1, …).
std::vector<float> run_op(const std::string& op, const std::vector<eval::Tensor>& operands,
                          const std::string& args, const std::string& attrs) {
  std::string nodes;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::string shape;
    for (int64_t d : operands[i].shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    nodes += R"({"name": "t)" + std::to_string(i) + R"(", "op": "placeholder", "target": "t)" +
             std::to_string(i) + R"(", "meta": {"shape": [)" + shape +
             R"(], "dtype": "float32"}},)";
  }
  std::string json = R"({"format": "graft.model", "version": 1, "nodes": [)" + nodes +
                     R"({"name": "y", "op": "call_function", "target": ")" + op +
                     R"(", "args": )" + args + R"(, "kwargs": )" + attrs + R"(},
    {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(json, "op.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  auto out = eval::run_reference(*model->graph, operands, diags);
  INFO(diags.render());
  REQUIRE(out);
  return std::vector<float>((*out)[0].f32(), (*out)[0].f32() + (*out)[0].numel());
}

void check_values(const std::vector<float>& got, const std::vector<float>& want,
                  double margin = 0) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(1e-6).margin(margin));
  }
}

std::vector<float> pattern(int64_t count, int64_t step, int64_t mod, float offset) {
  std::vector<float> v;
  for (int64_t i = 0; i < count; ++i) v.push_back(static_cast<float>(i * step % mod) + offset);
  return v;
}

}  // namespace

TEST_CASE("conv_transpose2d matches torch with stride, padding, output_padding and groups",
          "[eval][reference]") {
  // x = torch.arange(24.).reshape(1, 4, 2, 3) % 7 - 3; w = torch.arange(36.).reshape(4, 1, 3,
  // 3) % 5 - 2; F.conv_transpose2d(x, w, torch.tensor([0.5, -1.0]), stride=2, padding=1,
  // output_padding=1, groups=2)
  auto x = eval::Tensor::from_floats({1, 4, 2, 3}, pattern(24, 1, 7, -3));
  auto w = eval::Tensor::from_floats({4, 1, 3, 3}, pattern(36, 1, 5, -2));
  auto b = eval::Tensor::from_floats({2}, {0.5f, -1.0f});
  check_values(
      run_op("conv_transpose2d", {x, w, b}, R"([{"node": "t0"}, {"node": "t1"}, {"node": "t2"}])",
             R"({"stride": [2, 2], "padding": [1, 1], "output_padding": [1, 1], "groups": 2})"),
      {-2.5, 10.5, -6.5, -2.5, -3.5, -1.5, -0.5, 4.5,  2.5,  1.5, -1.5, -1.5,
       -0.5, -0.5, 2.5,  0.5,  5.5,  -1.5, 1.5,  -0.5, 0.5,  -2.5, -0.5, 2.5,
       -2,   -6,   -3,   -1,   -4,   -4,   -10,  0,    -7,   -13,  10,   -6,
       2,    2,    1,    0,    0,    -1,   -3,   3,    -3,   3,    -3,   1});
}

TEST_CASE("conv_transpose1d matches torch with dilation, and output_padding below it",
          "[eval][reference]") {
  auto x = eval::Tensor::from_floats({1, 2, 4}, {1, -2, 3, 0.5, 2, 1, -1, 4});
  auto w = eval::Tensor::from_floats({2, 3, 2}, {1, 2, 0, -1, 3, 1, -2, 1, 1, 1, 0.5, 2});
  const std::string args = R"([{"node": "t0"}, {"node": "t1"}])";
  // F.conv_transpose1d(x, w, dilation=2)
  check_values(run_op("conv_transpose1d", {x, w}, args, R"({"dilation": [2]})"),
               {-3, -4, 9, -10.5, 5, 5, 2, 1, 0, 7, -4, 3.5, 4, -5.5, 13.5, 3.5, 1, 8.5});
  // F.conv_transpose1d(x, w, stride=3, padding=1, output_padding=2, dilation=2)
  check_values(run_op("conv_transpose1d", {x, w}, args,
                      R"({"stride": [3], "padding": [1], "output_padding": [2], "dilation": [2]})"),
               {0, 4, -4, 0, -3, 5, 0, 5, -7.5, 0, 5, 0, 0, 1, 1, 0, 3, -1,
                0, -4, 4, 0, 3.5, 0, 0, 5, -5.5, 0, 0, 8.5, 0, 1, 3.5, 0, 8.5, 0});
}

TEST_CASE("group_norm matches torch with 1, 2 and C groups", "[eval][reference]") {
  // x = (torch.arange(24.).reshape(2, 4, 3) * 7 % 11) * 0.25 - 1.25;
  // w = torch.tensor([1.5, -0.5, 2.0, 1.0]); b = torch.tensor([0.25, 0.0, -1.0, 3.0])
  std::vector<float> xs = pattern(24, 7, 11, 0);
  for (float& v : xs) v = v * 0.25f - 1.25f;
  auto x = eval::Tensor::from_floats({2, 4, 3}, xs);
  auto w = eval::Tensor::from_floats({4}, {1.5, -0.5, 2.0, 1.0});
  auto b = eval::Tensor::from_floats({4}, {0.25, 0.0, -1.0, 3.0});
  const std::string args = R"([{"node": "t0"}])";
  const std::string operands = R"("weight": {"node": "t1"}, "bias": {"node": "t2"})";
  // Each list: F.group_norm(x.double(), g, w.double(), b.double()).float()
  check_values(run_op("group_norm", {x, w, b}, args, R"({"num_groups": 1, )" + operands + "}"),
               {-1.81571531, 1.33919537,  -0.463610739, -0.813766658, -0.212831274, 0.388104081,
                1.65413117,  -0.749610245, -3.15335178,  4.02659798,   2.8247273,    1.6228565,
                1.14351749,  -0.805975258, 2.60563707,   -0.135381445, 0.514449477, -0.622754633,
                -1.10830522, -3.70762897,  0.841187656,  2.62093186,   1.32127011,   3.59567833},
               1e-6);
  check_values(run_op("group_norm", {x, w, b}, args, R"({"num_groups": 2, )" + operands + "}"),
               {-1.83956325, 1.29478157,  -0.496272564, -0.796024084, -0.199006021, 0.398012042,
                1.72391975,  -0.697342277, -3.11860418,  4.05930233,   2.8486712,    1.63804018,
                0.679444671, -1.38188982,  2.22544551,   0.0286296457, 0.715741158, -0.486703992,
                -0.427407086, -3.17585301, 1.63392746,   2.94274068,   1.56851768,   3.97340798},
               1e-6);
  check_values(run_op("group_norm", {x, w, b}, args, R"({"num_groups": 4, )" + operands + "}"),
               {-1.49369764, 2.16806746,  0.0756302401, -0.612367868, 0,           0.612367868,
                1.44947135,  -1,          -3.44947147,  4.22473574,   3,           1.77526426,
                0.424369752, -1.66806734, 1.99369764,   -0.0581232533, 0.639355779, -0.581232548,
                -0.767506957, -3.55742311, 1.32493019,  3.11624646,   1.72128844,  4.1624651},
               1e-6);
}

TEST_CASE("group_norm keeps its precision on an input offset by 1000", "[eval][reference]") {
  // F.group_norm(x.double() + 1000, 2).float(), x as above: torch's float32 kernel is 5e-5
  // off here; two passes in double are exact to float rounding.
  std::vector<float> xs = pattern(24, 7, 11, 0);
  for (float& v : xs) v = v * 0.25f - 1.25f + 1000;
  auto x = eval::Tensor::from_floats({2, 4, 3}, xs);
  check_values(run_op("group_norm", {x}, R"([{"node": "t0"}])", R"({"num_groups": 2})"),
               {-1.39304209,  0.696521044, -0.497515053, 1.59204817,  0.398012042, -0.796024084,
                1.36195982,   0.151328877, -1.05930209,  1.05930209,  -0.151328877, -1.36195982,
                0.286296457,  -1.08792651, 1.31696379,   -0.0572592914, -1.43148232, 0.973407984,
                0.286296457,  -1.08792651, 1.31696379,   -0.0572592914, -1.43148232, 0.973407984},
               1e-6);
}
