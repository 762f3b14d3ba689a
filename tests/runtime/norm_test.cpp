// batch_norm and layer_norm vs the reference.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("batch_norm matches the reference on plain and blocked inputs", "[runtime][norm]") {
  for (bool affine : {true, false}) {
    for (bool after_conv : {false, true}) {
      GraphBuilder b;
      Node* x = b.input("x", {2, 24, 5, 7});
      Node* src = after_conv ? b.call("conv2d", {in(x), in(b.constant("w", {24, 24, 1, 1}, 1))}) : x;
      Node* mean = b.constant("mean", {24}, 2);
      Node* var = b.constant("var", {24}, 3, 0.5f, 2.0f);
      Node* w = affine ? b.constant("gamma", {24}, 4) : nullptr;
      Node* bias = affine ? b.constant("beta", {24}, 5) : nullptr;
      b.output({b.call("batch_norm", {in(src), in(mean), in(var), w ? in(w) : Input::none(),
                                      bias ? in(bias) : Input::none()},
                       {{"eps", 1e-3}})});
      INFO("affine " << affine << " after_conv " << after_conv);
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 6)) == "");
    }
  }
}

TEST_CASE("batch_norm in training mode is reported as not implemented", "[runtime][norm]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 4, 3, 3});
  b.output({b.call("batch_norm", {in(x), in(b.constant("m", {4}, 1)), in(b.constant("v", {4}, 2))},
                   {{"training", true}})});
  DiagnosticEngine diags;
  CHECK(runtime::compile(b.graph(), {}, diags) == nullptr);
  CHECK(diags.render().find("not implemented in the runtime: batch_norm in training mode") !=
        std::string::npos);
}

TEST_CASE("layer_norm matches the reference over one and two normalized dims", "[runtime][norm]") {
  for (int dims : {1, 2}) {
    for (bool affine : {true, false}) {
      GraphBuilder b;
      Node* x = b.input("x", {2, 5, 6, 8});
      Shape norm = dims == 1 ? Shape{8} : Shape{6, 8};
      Node* w = affine ? b.constant("w", norm, 1) : nullptr;
      Node* bias = affine ? b.constant("b", norm, 2) : nullptr;
      b.output({b.call("layer_norm", {in(x), w ? in(w) : Input::none(), bias ? in(bias) : Input::none()},
                       {{"normalized_shape", std::vector<int64_t>(norm.begin(), norm.end())}})});
      INFO("dims " << dims << " affine " << affine);
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3)) == "");
    }
  }
}
