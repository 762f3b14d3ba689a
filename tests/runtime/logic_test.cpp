// The comparison, selection and dtype ops through the runtime (the fallback loop), and amin on
// oneDNN's reduction: equal to the reference on several shapes and dtypes, in every compile
// mode, and a causal mask (eq, masked_fill with -inf, softmax) as GPT-style models build it.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

Input integer(int64_t v) { return Input::of(Scalar{static_cast<double>(v), true}); }

}  // namespace

TEST_CASE("comparisons and logical ops run like the reference on every dtype",
          "[runtime][logic]") {
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kBool}) {
    GraphBuilder b;
    Node* x = b.input("x", {2, 3, 4}, dtype);
    Node* y = b.input("y", {3, 1}, dtype);
    std::vector<Node*> outs;
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      outs.push_back(b.call(op, {in(x), in(y)}));
      outs.push_back(b.call(op, {in(x), integer(1)}));
    }
    outs.push_back(b.call("logical_not", {in(x)}));
    outs.push_back(b.call("logical_and", {in(x), in(y)}));
    outs.push_back(b.call("logical_or", {in(y), in(x)}));
    b.output(outs);
    INFO(dtype_name(dtype));
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 11, -2, 2, 3)) == "");
  }
}

TEST_CASE("where, masked_fill, full_like and to run like the reference", "[runtime][logic]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3, 4});
  Node* i = b.input("i", {3, 4}, DType::kInt64);
  Node* m = b.input("m", {3, 1}, DType::kBool);
  Node* w = b.call("where", {in(m), in(x), in(i)});
  Node* ws = b.call("where", {in(m), scalar(0.5), integer(2)});
  Node* f = b.call("masked_fill", {in(x), in(m)}, {{"value", -INFINITY}});
  Node* fi = b.call("masked_fill", {in(i), in(m)}, {{"value", -2.7}});
  Node* z = b.call("full_like", {in(m)}, {{"fill_value", 0.0}, {"dtype", std::string("float32")}});
  Node* c = b.call("to", {in(x)}, {{"dtype", std::string("int64")}});
  Node* cb = b.call("to", {in(i)}, {{"dtype", std::string("bool")}});
  Node* cf = b.call("to", {in(cb)}, {{"dtype", std::string("float32")}});
  b.output({w, ws, f, fi, z, c, cb, cf});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 5, -3, 3, 4)) == "");
}

TEST_CASE("cumsum, argmax, argmin and amin run like the reference", "[runtime][logic]") {
  for (const Shape& shape : {Shape{7}, Shape{2, 3, 4}, Shape{1, 5, 1}}) {
    GraphBuilder b;
    Node* x = b.input("x", shape);
    Node* i = b.input("i", shape, DType::kInt64);
    Node* m = b.input("m", shape, DType::kBool);
    const int64_t last = static_cast<int64_t>(shape.size()) - 1;
    std::vector<Node*> outs = {
        b.call("cumsum", {in(x)}, {{"dim", last}}),
        b.call("cumsum", {in(i)}, {{"dim", int64_t{0}}}),
        b.call("cumsum", {in(m)}, {{"dim", last}}),
        b.call("argmax", {in(x)}),
        b.call("argmin", {in(i)}, {{"dim", last}, {"keepdim", true}}),
        b.call("argmax", {in(x)}, {{"dim", int64_t{0}}}),
        b.call("amin", {in(x)}, {{"dim", std::vector<int64_t>{last}}}),
        b.call("amin", {in(x)}),
    };
    b.output(outs);
    INFO(shape_to_string(shape));
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3, -1, 1, 5)) == "");
  }
}

TEST_CASE("a causal mask of -inf gives a softmax that ignores the future", "[runtime][logic]") {
  // nanoGPT: att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")) then softmax.
  GraphBuilder b;
  Node* att = b.input("att", {2, 4, 4});
  Node* tril = b.int_constant("tril", {4, 4}, {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1});
  Node* mask = b.call("eq", {in(tril), integer(0)});
  Node* filled = b.call("masked_fill", {in(att), in(mask)}, {{"value", -INFINITY}});
  Node* p = b.call("softmax", {in(filled)}, {{"dim", int64_t{-1}}});
  b.output({p});
  std::vector<eval::Tensor> inputs = random_inputs(b.graph(), 9);
  std::unique_ptr<runtime::Executable> exe;
  REQUIRE(check_against_reference(b.graph(), inputs, {}, 1e-5, 1e-6, &exe) == "");
  DiagnosticEngine diags;
  auto out = exe->run(inputs, diags);
  REQUIRE(out);
  const float* probs = (*out)[0].f32();
  for (int64_t row = 0; row < 8; ++row) {
    int64_t t = row % 4;
    float sum = 0;
    for (int64_t k = 0; k < 4; ++k) {
      if (k > t) CHECK(probs[row * 4 + k] == 0.0f);
      sum += probs[row * 4 + k];
    }
    CHECK(sum == Approx(1.0f));
  }
}
