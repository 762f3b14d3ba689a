// linear, linear_post and matmul vs the reference: 2-d and 3-d inputs, with and without bias,
// computed weights, post-ops and residual, and matmul's 1-d promotions and batch broadcasting.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("linear matches the reference for 1-d, 2-d and 3-d inputs", "[runtime][linear]") {
  auto x_shape = GENERATE(Shape{4, 19}, Shape{2, 5, 19}, Shape{19}, Shape{1, 19});
  for (bool bias : {true, false}) {
    GraphBuilder b;
    Node* x = b.input("x", x_shape);
    Node* w = b.constant("w", {13, 19}, 1);
    Node* bb = bias ? b.constant("b", {13}, 2) : nullptr;
    b.output({b.call("linear", {in(x), in(w), bb ? in(bb) : Input::none()})});
    INFO(shape_to_string(x_shape) << " bias " << bias);
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3)) == "");
  }
}

TEST_CASE("linear with a computed weight matches the reference", "[runtime][linear]") {
  GraphBuilder b;
  Node* x = b.input("x", {3, 8});
  Node* w = b.input("w", {6, 8});
  b.output({b.call("linear", {in(x), in(w), in(b.constant("b", {6}, 1))})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3)) == "");
}

TEST_CASE("linear_post matches the reference with activations and a residual",
          "[runtime][linear][fused]") {
  for (const char* act : {"none", "relu", "gelu", "silu", "hardswish", "leaky_relu"}) {
    GraphBuilder b;
    Node* x = b.input("x", {2, 4, 16});
    Node* r = b.input("r", {2, 4, 10});
    Node* y = b.call("linear_post",
                     {in(x), in(b.constant("w", {10, 16}, 1)), in(b.constant("b", {10}, 2)), in(r)},
                     {{"activation", std::string(act)}, {"alpha", 0.1},
                      {"post_activation", std::string("relu")}});
    b.output({y});
    INFO("activation " << act);
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 4)) == "");
  }
}

TEST_CASE("matmul matches the reference with promotions and broadcasting", "[runtime][matmul]") {
  struct Case {
    Shape a, b;
  };
  auto c = GENERATE(values<Case>({
      {{5, 7}, {7, 3}},
      {{2, 5, 7}, {2, 7, 3}},
      {{2, 5, 7}, {7, 3}},        // broadcast right
      {{5, 7}, {4, 7, 3}},        // broadcast left
      {{2, 1, 5, 7}, {1, 3, 7, 4}},
      {{7}, {7, 3}},              // vector-matrix
      {{2, 5, 7}, {7}},           // matrix-vector
      {{7}, {7}},                 // dot
  }));
  GraphBuilder b;
  Node* x = b.input("a", c.a);
  Node* y = b.input("b", c.b);
  b.output({b.call("matmul", {in(x), in(y)})});
  INFO(shape_to_string(c.a) << " @ " << shape_to_string(c.b));
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 6)) == "");
}
