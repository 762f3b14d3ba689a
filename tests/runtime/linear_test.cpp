// linear, linear_post and matmul vs the reference: 2-d and 3-d inputs, with and without bias,
// computed weights, post-ops and residual, row blocks on several threads, and matmul's 1-d
// promotions and batch broadcasting.
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

namespace {

/// Sets the runtime's thread count for a scope.
class Threads {
 public:
  explicit Threads(int n) : saved_(runtime::max_threads()) { runtime::set_num_threads(n); }
  ~Threads() { runtime::set_num_threads(saved_); }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;

 private:
  int saved_;
};

/// The implementation names of the graph's linear steps.
std::vector<std::string> linear_impls(const runtime::Executable& exe) {
  std::vector<std::string> impls;
  for (const runtime::StepInfo& s : exe.steps()) {
    if (s.op == "linear" || s.op == "linear_post") impls.push_back(s.impl);
  }
  return impls;
}

}  // namespace

TEST_CASE("linear in row blocks, one per thread, matches the reference",
          "[runtime][linear][threads]") {
  // Rows that do not divide evenly; a residual summed in place and one that lives on; a model
  // input read at each block's first row.
  Threads threads(3);
  GraphBuilder b;
  Node* x = b.input("x", {2, 37, 24});
  Node* r = b.input("r", {2, 37, 16});
  Node* first = b.call("linear", {in(x), in(b.constant("w1", {16, 24}, 1)), in(b.constant("b1", {16}, 2))});
  Node* second = b.call("linear_post",
                        {in(first), in(b.constant("w2", {16, 16}, 3)), in(b.constant("b2", {16}, 4)), in(r)},
                        {{"activation", std::string("gelu")}});
  Node* third = b.call("linear_post", {in(second), in(b.constant("w3", {16, 16}, 5)), Input::none(),
                                        in(second)},
                       {{"activation", std::string("relu")}});
  b.output({third, r});
  runtime::CompileOptions options;
  options.row_blocks = runtime::CompileOptions::RowBlocks::kAlways;
  std::unique_ptr<runtime::Executable> exe;
  REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 7), options, 1e-4, 1e-4, &exe) == "");
  INFO(exe->dump());
  for (const std::string& impl : linear_impls(*exe)) CHECK(impl.find("row blocks") != std::string::npos);
  options.in_place = false;
  CHECK(check_against_reference(b.graph(), random_inputs(b.graph(), 8), options) == "");

  // Never: one primitive each. Measured: small products keep one primitive without a race.
  for (auto mode : {runtime::CompileOptions::RowBlocks::kNever, runtime::CompileOptions::RowBlocks::kMeasure}) {
    options.row_blocks = mode;
    REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 9), options, 1e-4, 1e-4, &exe) == "");
    for (const std::string& impl : linear_impls(*exe)) CHECK(impl.find("row blocks") == std::string::npos);
  }
}

TEST_CASE("linear keeps one primitive on one thread or with a computed weight",
          "[runtime][linear][threads]") {
  GraphBuilder b;
  Node* x = b.input("x", {64, 32});
  Node* w = b.input("w", {8, 32});
  b.output({b.call("linear", {in(x), in(b.constant("w1", {8, 32}, 1))}), b.call("linear", {in(x), in(w)})});
  runtime::CompileOptions options;
  options.row_blocks = runtime::CompileOptions::RowBlocks::kAlways;
  std::unique_ptr<runtime::Executable> exe;
  {
    Threads one(1);
    REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 3), options, 1e-4, 1e-4, &exe) == "");
    for (const std::string& impl : linear_impls(*exe)) CHECK(impl.find("row blocks") == std::string::npos);
  }
  Threads two(2);
  REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 4), options, 1e-4, 1e-4, &exe) == "");
  const std::vector<std::string> impls = linear_impls(*exe);
  REQUIRE(impls.size() == 2);
  CHECK(impls[0].find("row blocks") != std::string::npos);
  CHECK(impls[1].find("row blocks") == std::string::npos);
}
