// Fused ops against the same computation unfused, both through the runtime: conv2d_post and
// linear_post vs conv2d/linear, the activation op, add and the post-activation op. Also the
// blocked and plain layout paths against each other on a small residual network.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

struct Activation {
  const char* name;  // the fused ops' activation name
  double alpha, beta;
  const char* op;    // the unfused op computing it
  std::map<std::string, AttrValue> attrs;
};

std::vector<Activation> activations() {
  return {
      {"relu", 0, 0, "relu", {}},
      {"relu6", 0, 0, "relu6", {}},
      {"leaky_relu", 0.2, 0, "leaky_relu", {{"negative_slope", 0.2}}},
      {"hardtanh", -0.5, 0.75, "hardtanh", {{"min_val", -0.5}, {"max_val", 0.75}}},
      {"clamp", -0.25, 0.5, "clamp", {{"min", -0.25}, {"max", 0.5}}},
      {"elu", 0.8, 0, "elu", {{"alpha", 0.8}}},
      {"hardswish", 0, 0, "hardswish", {}},
      {"hardsigmoid", 0, 0, "hardsigmoid", {}},
      {"silu", 0, 0, "silu", {}},
      {"sigmoid", 0, 0, "sigmoid", {}},
      {"tanh", 0, 0, "tanh", {}},
      {"gelu", 0, 0, "gelu", {}},
      {"gelu_tanh", 0, 0, "gelu", {{"approximate", std::string("tanh")}}},
  };
}

std::vector<eval::Tensor> run(const Graph& g, const std::vector<eval::Tensor>& inputs) {
  DiagnosticEngine diags;
  auto exe = runtime::compile(g, {}, diags);
  INFO(diags.render());
  REQUIRE(exe != nullptr);
  auto out = exe->run(inputs, diags);
  REQUIRE(out.has_value());
  return *out;
}

/// conv2d_post / linear_post, or the unfused chain, over the same constants.
std::unique_ptr<Graph> build(bool fused, bool conv, const Activation& act, bool residual) {
  GraphBuilder b;
  Shape xs = conv ? Shape{2, 8, 6, 6} : Shape{3, 12};
  Shape ys = conv ? Shape{2, 16, 6, 6} : Shape{3, 16};
  Node* x = b.input("x", xs);
  Node* r = b.input("r", ys);
  Node* w = conv ? b.constant("w", {16, 8, 3, 3}, 1) : b.constant("w", {16, 12}, 1);
  Node* bias = b.constant("b", {16}, 2);
  std::map<std::string, AttrValue> geometry;
  if (conv) geometry["padding"] = int64_t{1};
  Node* y;
  if (fused) {
    auto attrs = geometry;
    attrs["activation"] = std::string(act.name);
    attrs["alpha"] = act.alpha;
    attrs["beta"] = act.beta;
    attrs["post_activation"] = std::string(residual ? "relu" : "none");
    y = b.call(conv ? "conv2d_post" : "linear_post",
               {in(x), in(w), in(bias), residual ? in(r) : Input::none()}, attrs);
  } else {
    y = b.call(conv ? "conv2d" : "linear", {in(x), in(w), in(bias)}, geometry);
    y = b.call(act.op, {in(y)}, act.attrs);
    if (residual) y = b.call("relu", {in(b.call("add", {in(y), in(r)}))});
  }
  b.output({y});
  return b.take();
}

}  // namespace

TEST_CASE("fused conv2d_post and linear_post equal their unfused chains", "[runtime][fused]") {
  for (const Activation& act : activations()) {
    for (bool conv : {true, false}) {
      for (bool residual : {false, true}) {
        auto fused = build(true, conv, act, residual);
        auto unfused = build(false, conv, act, residual);
        auto inputs = random_inputs(*fused, 3);
        auto a = run(*fused, inputs);
        auto b = run(*unfused, inputs);
        INFO(act.name << (conv ? " conv" : " linear") << (residual ? " + residual, relu" : ""));
        CHECK(eval::allclose(a[0], b[0], 1e-5, 1e-5));
      }
    }
  }
}

TEST_CASE("blocked and plain layouts give the same results on a residual network",
          "[runtime][layout]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3, 17, 17});
  Node* y = b.call("conv2d", {in(x), in(b.constant("w0", {16, 3, 3, 3}, 1))},
                   {{"stride", int64_t{2}}, {"padding", int64_t{1}}});
  y = b.call("relu", {in(y)});
  Node* skip = y;
  y = b.call("conv2d", {in(y), in(b.constant("w1", {16, 16, 3, 3}, 2))}, {{"padding", int64_t{1}}});
  y = b.call("relu", {in(b.call("add", {in(y), in(skip)}))});
  y = b.call("max_pool2d", {in(y)}, {{"kernel_size", int64_t{2}}, {"ceil_mode", true}});
  y = b.call("conv2d", {in(y), in(b.constant("dw", {16, 1, 3, 3}, 3))},
             {{"padding", int64_t{1}}, {"groups", int64_t{16}}});
  y = b.call("adaptive_avg_pool2d", {in(y)}, {{"output_size", std::vector<int64_t>{1, 1}}});
  y = b.call("flatten", {in(y)}, {{"start_dim", int64_t{1}}});
  y = b.call("linear", {in(y), in(b.constant("fc", {10, 16}, 4)), in(b.constant("fb", {10}, 5))});
  y = b.call("softmax", {in(y)}, {{"dim", int64_t{1}}});
  b.output({y});
  auto inputs = random_inputs(b.graph(), 7);
  std::vector<std::vector<eval::Tensor>> results;
  for (bool blocked : {true, false}) {
    runtime::CompileOptions options;
    options.blocked_layouts = blocked;
    DiagnosticEngine diags;
    auto exe = runtime::compile(b.graph(), options, diags);
    REQUIRE(exe != nullptr);
    auto out = exe->run(inputs, diags);
    REQUIRE(out.has_value());
    results.push_back(*out);
    bool any_blocked = false;
    for (const runtime::StepInfo& s : exe->steps()) any_blocked |= s.layout != "abcd" && s.layout != "ab";
    CHECK(any_blocked == blocked);  // the option really switches the layout
  }
  CHECK(eval::allclose(results[0][0], results[1][0], 1e-5, 1e-6));
}
