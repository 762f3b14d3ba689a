// slice, select, expand, expand_as, flip, roll, unflatten, embedding, index_select,
// slice_scatter and select_scatter in the runtime vs the reference, on float32, int64 and bool,
// next to blocked convolution outputs; and an embedding index out of range as an error of the
// run.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;
const int64_t kMax = std::numeric_limits<int64_t>::max();

/// The indexing ops on `x` of shape [2, 8, 5, 5]: every output the test compares.
std::vector<Node*> indexing_ops(GraphBuilder& b, Node* x) {
  return {
      b.call("slice", {in(x)}, {{"dim", int64_t{1}}, {"start", int64_t{1}}, {"end", kMax},
                                {"step", int64_t{3}}}),
      b.call("slice", {in(x)}, {{"dim", int64_t{-1}}, {"start", int64_t{-2}}}),
      b.call("select", {in(x)}, {{"dim", int64_t{2}}, {"index", int64_t{-1}}}),
      b.call("expand", {in(b.call("select", {in(x)}, {{"dim", int64_t{0}}, {"index", int64_t{0}}}))},
             {{"size", Ints{3, -1, -1, -1}}}),
      b.call("flip", {in(x)}, {{"dims", Ints{1, 3}}}),
      b.call("roll", {in(x)}, {{"shifts", Ints{3, -2}}, {"dims", Ints{1, 2}}}),
      b.call("roll", {in(x)}, {{"shifts", Ints{7}}}),
      b.call("unflatten", {in(x)}, {{"dim", int64_t{1}}, {"sizes", Ints{2, -1}}}),
      b.call("index_select", {in(x), in(b.int_constant("idx", {4}, {4, 0, 0, 7}))},
             {{"dim", int64_t{1}}}),
      // x[:, 1::3] = x[:, 1::3].flip(1); x[:, :, -1] = x[:, :, 0]
      b.call("slice_scatter",
             {in(x), in(b.call("flip", {in(b.call("slice", {in(x)}, {{"dim", int64_t{1}},
                                                                       {"start", int64_t{1}},
                                                                       {"step", int64_t{3}}}))},
                               {{"dims", Ints{1}}}))},
             {{"dim", int64_t{1}}, {"start", int64_t{1}}, {"step", int64_t{3}}}),
      b.call("select_scatter",
             {in(x), in(b.call("select", {in(x)}, {{"dim", int64_t{2}}, {"index", int64_t{0}}}))},
             {{"dim", int64_t{2}}, {"index", int64_t{-1}}}),
  };
}

}  // namespace

TEST_CASE("indexing ops match the reference on float32, int64 and bool", "[runtime][indexing]") {
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kBool}) {
    GraphBuilder b;
    Node* x = b.input("x", {2, 8, 5, 5}, dtype);
    std::vector<Node*> outs = indexing_ops(b, x);
    b.output(outs);
    INFO(dtype_name(dtype));
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 3, -1, 1, 100)) == "");
  }
}

TEST_CASE("indexing ops read blocked convolution outputs", "[runtime][indexing]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 16, 5, 5});
  Node* c = b.call("conv2d", {in(x), in(b.constant("w", {8, 16, 1, 1}, 1))});
  Node* e = b.call("expand_as", {in(b.call("slice", {in(c)}, {{"dim", int64_t{0}}, {"end", int64_t{1}}})),
                                 in(c)});
  std::vector<Node*> outs = indexing_ops(b, c);
  outs.push_back(b.call("add", {in(e), in(c)}));
  b.output(outs);
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 4)) == "");
}

TEST_CASE("embedding looks up rows of a float32 weight by int64 indices of any shape",
          "[runtime][indexing]") {
  GraphBuilder b;
  Node* ids = b.input("ids", {2, 3, 4}, DType::kInt64);
  Node* e = b.call("embedding", {in(ids), in(b.constant("table", {50, 16}, 1))});
  Node* l = b.call("linear", {in(e), in(b.constant("fc", {8, 16}, 2))});
  b.output({e, l});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 5, -1, 1, 50)) == "");
}

TEST_CASE("an embedding index out of range is an error of the run, naming the node",
          "[runtime][indexing]") {
  GraphBuilder b;
  Node* ids = b.input("ids", {3}, DType::kInt64);
  Node* e = b.call("embedding", {in(ids), in(b.constant("table", {10, 4}, 1))});
  b.output({e});
  DiagnosticEngine diags;
  auto exe = runtime::compile(b.graph(), {}, diags);
  REQUIRE(exe);
  CHECK_FALSE(exe->run({eval::Tensor::from_ints({3}, {1, 10, 2})}, diags));
  CHECK(diags.render() == "error: node '" + e->name() +
                              "' (embedding): index 10 is out of range for the 10 rows of the "
                              "weight\n");
  // The executable stays usable.
  DiagnosticEngine ok;
  CHECK(exe->run({eval::Tensor::from_ints({3}, {9, 0, -0})}, ok));
}

TEST_CASE("a constant index out of range is refused at compile time", "[runtime][indexing]") {
  GraphBuilder b;
  Node* x = b.input("x", {3, 2});
  Node* s = b.call("index_select", {in(x), in(b.int_constant("idx", {2}, {0, 3}))},
                   {{"dim", int64_t{0}}});
  b.output({s});
  DiagnosticEngine diags;
  CHECK_FALSE(runtime::compile(b.graph(), {}, diags));
  CHECK_THAT(diags.render(), Catch::Contains("node '" + s->name() + "' (index_select)") &&
                                 Catch::Contains("index 3 is out of range for dim 0 of size 3"));
}
