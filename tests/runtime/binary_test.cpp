// Binary elementwise ops vs the reference: same shapes, broadcasting either way, different
// ranks, scalars on either side, alpha, and a blocked operand against a plain one.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("binary ops match the reference over broadcast patterns", "[runtime][binary]") {
  struct Shapes {
    Shape a, b;
  };
  auto shapes = GENERATE(values<Shapes>({
      {{2, 3, 4, 5}, {2, 3, 4, 5}},  // same
      {{2, 3, 4, 5}, {1, 3, 1, 1}},  // per-channel
      {{2, 3, 4, 5}, {5}},           // lower rank, trailing
      {{1, 3, 1, 1}, {2, 3, 4, 5}},  // the first operand broadcasts
      {{4, 1}, {1, 6}},              // both broadcast
      {{7}, {7}},
  }));
  for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum"}) {
    GraphBuilder b;
    Node* x = b.input("x", shapes.a);
    Node* y = b.input("y", shapes.b);
    Node* z = b.call(op, {in(x), in(y)});
    b.output({z});
    INFO(op << " " << shape_to_string(shapes.a) << " " << shape_to_string(shapes.b));
    // pow needs a positive base; everything else takes any sign (divisors stay away from 0).
    auto inputs = random_inputs(b.graph(), 3, 0.5f, 2.0f);
    if (std::string(op) != "pow" && std::string(op) != "div") inputs = random_inputs(b.graph(), 3, -2, 2);
    CHECK(check_all_modes(b.graph(), inputs, 1e-5, 1e-5) == "");
  }
}

TEST_CASE("binary ops with a scalar on either side match the reference", "[runtime][binary]") {
  for (const char* op : {"add", "sub", "mul", "div", "pow"}) {
    for (bool scalar_first : {false, true}) {
      GraphBuilder b;
      Node* x = b.input("x", {2, 3, 5});
      Node* z = scalar_first ? b.call(op, {scalar(1.5), in(x)}) : b.call(op, {in(x), scalar(1.5)});
      b.output({z});
      INFO(op << (scalar_first ? " scalar first" : " scalar second"));
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 4, 0.5f, 2.0f), 1e-5, 1e-5) == "");
    }
  }
}

TEST_CASE("add and sub apply alpha to the second operand", "[runtime][binary]") {
  for (const char* op : {"add", "sub"}) {
    for (bool broadcast_first : {false, true}) {
      GraphBuilder b;
      Node* x = b.input("x", broadcast_first ? Shape{1, 4, 1} : Shape{3, 4, 5});
      Node* y = b.input("y", broadcast_first ? Shape{3, 4, 5} : Shape{1, 4, 1});
      Node* z = b.call(op, {in(x), in(y)}, {{"alpha", 2.5}});
      Node* s = b.call(op, {in(x), scalar(3.0)}, {{"alpha", -0.5}});
      b.output({z, s});
      INFO(op << " broadcast_first " << broadcast_first);
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 8), 1e-5, 1e-5) == "");
    }
  }
}

TEST_CASE("add of a blocked conv output and a plain tensor matches the reference",
          "[runtime][binary][layout]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 16, 6, 6});
  Node* r = b.input("r", {2, 32, 6, 6});
  Node* conv = b.call("conv2d", {in(x), in(b.constant("w", {32, 16, 3, 3}, 2))},
                      {{"padding", int64_t{1}}});
  Node* sum = b.call("add", {in(conv), in(r)});       // full-size plain operand
  Node* bias = b.constant("bias", {1, 32, 1, 1}, 5);
  Node* scaled = b.call("mul", {in(sum), in(bias)});  // per-channel broadcast
  Node* rev = b.call("sub", {in(bias), in(scaled)});  // broadcast first: swapped, negated
  Node* hi = b.call("maximum", {in(rev), in(conv)});  // blocked against blocked
  Node* lo = b.call("minimum", {in(bias), in(hi)});   // broadcast first: swapped
  b.output({rev, lo});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 9), 1e-4, 1e-4) == "");
}

TEST_CASE("div honours torch's rounding_mode", "[runtime][binary]") {
  // torch.div([7, -7, 7.5, -0.5], 2, rounding_mode=…): floor rounds down, trunc toward zero.
  const std::vector<float> x = {7, -7, 7.5f, -0.5f};
  const std::map<std::string, std::vector<float>> expected = {
      {"none", {3.5f, -3.5f, 3.75f, -0.25f}},
      {"floor", {3, -4, 3, -1}},
      {"trunc", {3, -3, 3, -0.0f}},
  };
  for (const auto& [mode, want] : expected) {
    GraphBuilder b;
    Node* in_x = b.input("x", {4});
    std::map<std::string, AttrValue> attrs;
    if (mode != "none") attrs["rounding_mode"] = mode;
    b.output({b.call("div", {in(in_x), scalar(2.0)}, attrs)});
    DiagnosticEngine diags;
    auto exe = runtime::compile(b.graph(), {}, diags);
    INFO(mode << "\n" << diags.render());
    REQUIRE(exe);
    auto out = exe->run({eval::Tensor::from_floats({4}, x)}, diags);
    REQUIRE(out);
    for (size_t i = 0; i < want.size(); ++i) CHECK((*out)[0].f32()[i] == want[i]);
  }
}
