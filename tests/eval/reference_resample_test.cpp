// interpolate's reference kernel against values computed by torch 1.13 (F.interpolate on a
// 1x1x3x4 input): torch's floor rule for 'nearest', half-pixel and align_corners bilinear,
// and a given scale factor mapping coordinates by its inverse rather than by in / out.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/io/model_json.h"
#include "eval/reference.h"

using namespace graft;

namespace {

/// Runs interpolate(x, <attrs>) on x = [[0, 1, 4, 9], [2, -3, 5, 8], [7, 6, -1, 0.5]].
std::vector<float> run_interpolate(const std::string& attrs) {
  std::string json = R"({"format": "graft.model", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [1, 1, 3, 4], "dtype": "float32"}},
    {"name": "y", "op": "call_function", "target": "interpolate", "args": [{"node": "x"}],
     "kwargs": )" + attrs + R"(},
    {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
  DiagnosticEngine diags;
  std::optional<Model> model = load_model_from_string(json, "resample.json", ".", diags);
  INFO(diags.render());
  REQUIRE(model);
  eval::Tensor x = eval::Tensor::from_floats({1, 1, 3, 4}, {0, 1, 4, 9, 2, -3, 5, 8, 7, 6, -1, 0.5});
  auto out = eval::run_reference(*model->graph, {x}, diags);
  INFO(diags.render());
  REQUIRE(out);
  return std::vector<float>((*out)[0].f32(), (*out)[0].f32() + (*out)[0].numel());
}

void check_values(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(1e-6).margin(1e-6));
  }
}

}  // namespace

TEST_CASE("interpolate's nearest mode takes floor(dst * scale) as torch does",
          "[eval][reference]") {
  // F.interpolate(x, size=[5, 3])
  check_values(run_interpolate(R"({"size": [5, 3]})"),
               {0, 1, 4, 0, 1, 4, 2, -3, 5, 2, -3, 5, 7, 6, -1});
  // F.interpolate(x, scale_factor=[1.7, 0.6]): W maps by 1 / 0.6, not by 4 / 2.
  check_values(run_interpolate(R"({"scale_factor": [1.7, 0.6]})"),
               {0, 1, 0, 1, 2, -3, 2, -3, 7, 6});
  // F.interpolate(x.repeat(1, 2, 1, 1), scale_factor=[2.1, 1.0])[0, 0]: H maps by 1 / 2.1
  // although out == 2 * in (torch's one-channel kernel would halve instead).
  check_values(run_interpolate(R"({"scale_factor": [2.1, 1.0]})"),
               {0, 1, 4, 9, 0, 1, 4, 9, 0, 1, 4, 9, 2, -3, 5, 8, 2, -3, 5, 8, 7, 6, -1, 0.5});
}

TEST_CASE("interpolate's bilinear mode matches torch with and without align_corners",
          "[eval][reference]") {
  // F.interpolate(x, size=[5, 3], mode="bilinear", align_corners=False)
  check_values(run_interpolate(R"({"size": [5, 3], "mode": "bilinear"})"),
               {0.166666687f, 2.50000024f, 8.16666698f, 0.566666663f, 1.90000033f, 7.9000001f,
                1.16666687f, 1.00000036f, 7.5f, 4.56666708f, 1.9000001f, 3.14999962f,
                6.83333349f, 2.49999952f, 0.250000119f});
  // F.interpolate(x, size=[5, 3], mode="bilinear", align_corners=True)
  check_values(run_interpolate(R"({"size": [5, 3], "mode": "bilinear", "align_corners": true})"),
               {0, 2.5, 9, 1, 1.75, 8.5, 2, 1, 8, 4.5, 1.75, 4.25, 7, 2.5, 0.5});
  // F.interpolate(x, scale_factor=[1.7, 0.6], mode="bilinear")
  check_values(run_interpolate(R"({"scale_factor": [1.7, 0.6], "mode": "bilinear"})"),
               {0.333333313f, 3.99999976f, 0.333333373f, 4.38235283f, 0.333333433f, 4.97058773f,
                3.8725493f, 1.64705849f, 6.66666651f, -0.999999523f});
}
