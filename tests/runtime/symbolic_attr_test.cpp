// A graph exported once at any sequence length T: arange(T) and a mask buffer sliced to
// [:T, :T] compile for each bound T, and a T past the buffer is a compile-time error naming
// the node. arange's kernel against the reference.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("arange matches the reference on int64 and float32", "[runtime][arange]") {
  GraphBuilder b;
  Node* x = b.input("x", {3, 4});
  Node* ints = b.call("arange", {}, {{"start", int64_t{1}}, {"end", int64_t{5}}});
  Node* floats = b.call("arange", {}, {{"start", int64_t{0}}, {"end", 1.0}, {"step", 0.25}});
  b.output({ints, floats, b.call("mul", {in(x), in(floats)})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 7)) == "");
}

TEST_CASE("a graph with symbolic attributes runs at every bound value", "[runtime][symint]") {
  GraphBuilder b;
  const Dim t = dim_symbol("T");
  Node* x = b.input("x", {2, t});
  Node* pos = b.call("arange", {}, {{"start", int64_t{0}}, {"end", std::string("T")},
                                     {"dtype", std::string("float32")}});
  // tril(ones(4, 4))[:T, :T]
  Node* mask = b.int_constant("mask", {4, 4}, {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1});
  Node* rows = b.call("slice", {in(mask)}, {{"dim", int64_t{0}}, {"end", std::string("T")}});
  Node* square = b.call("slice", {in(rows)}, {{"dim", int64_t{1}}, {"end", std::string("T")}});
  b.output({b.call("add", {in(x), in(pos)}), square});

  DiagnosticEngine diags;
  runtime::CompileOptions options;
  options.shapes.symbols["T"] = 3;
  auto exe = runtime::compile(b.graph(), options, diags);
  INFO(diags.render());
  REQUIRE(exe);
  auto out = exe->run({eval::Tensor::from_floats({2, 3}, {0, 0, 0, 10, 10, 10})}, diags);
  REQUIRE(out);
  CHECK(std::vector<float>((*out)[0].f32(), (*out)[0].f32() + 6) ==
        std::vector<float>{0, 1, 2, 10, 11, 12});
  CHECK((*out)[1].shape() == Shape{3, 3});
  CHECK(std::vector<int64_t>((*out)[1].i64(), (*out)[1].i64() + 9) ==
        std::vector<int64_t>{1, 0, 0, 1, 1, 0, 1, 1, 1});

  options.shapes.symbols["T"] = 5;
  CHECK_FALSE(runtime::compile(b.graph(), options, diags));
  CHECK(diags.render().find("error: node '" + rows->name() + "' (slice) computes [4, 4] at T=5, "
                            "not [T, 4]: a symbol's value runs past the dim it indexes") !=
        std::string::npos);
}
