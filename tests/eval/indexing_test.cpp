// The reference kernels of slice, select, expand, expand_as, flip, roll, unflatten, embedding,
// index_select, slice_scatter and select_scatter against torch 1.13's values (each names the
// torch call), through the constant folder on int64 constants so that every result is exact.
#include <catch2/catch.hpp>

#include <cstring>

#include "tests/eval/folding.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;
const int64_t kMax = std::numeric_limits<int64_t>::max();

ConstantTensor arange12() {  // torch.arange(12).reshape(3, 4)
  return int_constant({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

}  // namespace

TEST_CASE("slice clamps its bounds as Python does", "[eval][indexing]") {
  const ConstantTensor x = arange12();
  // x[:, 1::2]
  Folded a = fold("slice", {x}, {{"dim", int64_t{1}}, {"start", int64_t{1}}, {"end", kMax},
                                 {"step", int64_t{2}}});
  CHECK(a.shape() == Shape{3, 2});
  CHECK(a.i64() == Ints{1, 3, 5, 7, 9, 11});
  // torch.ops.aten.slice(x, 0, -2, 100)
  Folded b = fold("slice", {x}, {{"start", int64_t{-2}}, {"end", int64_t{100}}});
  CHECK(b.i64() == Ints{4, 5, 6, 7, 8, 9, 10, 11});
  // torch.ops.aten.slice(x, 1, 3, 1): empty
  Folded c = fold("slice", {x}, {{"dim", int64_t{1}}, {"start", int64_t{3}}, {"end", int64_t{1}}});
  CHECK(c.shape() == Shape{3, 0});
  // x[-100:] with None bounds
  CHECK(fold("slice", {x}, {{"start", int64_t{-100}}}).i64().size() == 12);
}

TEST_CASE("select takes negative indices and drops the dim", "[eval][indexing]") {
  // torch.select(x, 1, -1)
  Folded r = fold("select", {arange12()}, {{"dim", int64_t{1}}, {"index", int64_t{-1}}});
  CHECK(r.shape() == Shape{3});
  CHECK(r.i64() == Ints{3, 7, 11});
}

TEST_CASE("slice_scatter writes src into the strided slice and keeps the rest of input",
          "[eval][indexing]") {
  const ConstantTensor x = arange12();
  // torch.ops.aten.slice_scatter(x, -torch.arange(1, 7).reshape(3, 2), 1, 1, 100, 2)
  Folded a = fold("slice_scatter", {x, int_constant({3, 2}, {-1, -2, -3, -4, -5, -6})},
                  {{"dim", int64_t{1}}, {"start", int64_t{1}}, {"end", int64_t{100}},
                   {"step", int64_t{2}}});
  CHECK(a.shape() == Shape{3, 4});
  CHECK(a.i64() == Ints{0, -1, 2, -2, 4, -3, 6, -4, 8, -5, 10, -6});
  // torch.ops.aten.slice_scatter(x, -torch.arange(1, 5).reshape(1, 4), 0, -1)
  CHECK(fold("slice_scatter", {x, int_constant({1, 4}, {-1, -2, -3, -4})},
             {{"start", int64_t{-1}}})
            .i64() == Ints{0, 1, 2, 3, 4, 5, 6, 7, -1, -2, -3, -4});
  // an empty slice writes nothing
  CHECK(fold("slice_scatter", {x, int_constant({3, 0}, {})},
             {{"dim", int64_t{1}}, {"start", int64_t{3}}, {"end", int64_t{1}}})
            .i64() == Ints{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

TEST_CASE("select_scatter writes src at a possibly negative index", "[eval][indexing]") {
  // torch.select_scatter(x, torch.tensor([-1, -2, -3]), 1, -1)
  CHECK(fold("select_scatter", {arange12(), int_constant({3}, {-1, -2, -3})},
             {{"dim", int64_t{1}}, {"index", int64_t{-1}}})
            .i64() == Ints{0, 1, 2, -1, 4, 5, 6, -2, 8, 9, 10, -3});
  // torch.select_scatter(torch.zeros(2, 3, dtype=torch.bool), torch.tensor([1, 0, 1]), 0, 1)
  CHECK(fold("select_scatter", {bool_constant({2, 3}, {0, 0, 0, 0, 0, 0}),
                                bool_constant({3}, {1, 0, 1})},
             {{"dim", int64_t{0}}, {"index", int64_t{1}}})
            .b8() == std::vector<int>{0, 0, 0, 1, 0, 1});
  // a 0-d src into a 1-d input
  CHECK(fold("select_scatter", {int_constant({3}, {7, 8, 9}), int_constant({}, {5})},
             {{"dim", int64_t{0}}, {"index", int64_t{2}}})
            .i64() == Ints{7, 8, 5});
}

TEST_CASE("expand and expand_as repeat size-1 and new leading dims", "[eval][indexing]") {
  const ConstantTensor col = int_constant({3, 1}, {7, 8, 9});
  // torch.tensor([[7], [8], [9]]).expand(2, 3, 4)
  const Ints want = {7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9};
  Folded a = fold("expand", {col}, {{"size", Ints{2, -1, 4}}});
  CHECK(a.shape() == Shape{2, 3, 4});
  CHECK(a.i64() == want);
  Folded b = fold("expand_as", {col, int_constant({2, 3, 4}, Ints(24, 0))});
  CHECK(b.i64() == want);
  // torch.tensor([[True, False, True]]).expand(2, 3).flip([1])
  Folded m = fold("flip", {fold("expand", {bool_constant({1, 3}, {1, 0, 1})},
                                {{"size", Ints{2, 3}}}).value.value()},
                  {{"dims", Ints{1}}});
  CHECK(m.b8() == std::vector<int>{1, 0, 1, 1, 0, 1});
}

TEST_CASE("flip reverses every listed dim", "[eval][indexing]") {
  // torch.flip(x, [0, -1])
  CHECK(fold("flip", {arange12()}, {{"dims", Ints{0, -1}}}).i64() ==
        Ints{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
}

TEST_CASE("roll rotates along dims, or the flattened tensor", "[eval][indexing]") {
  const ConstantTensor x = arange12();
  // torch.roll(x, [1], [1])
  CHECK(fold("roll", {x}, {{"shifts", Ints{1}}, {"dims", Ints{1}}}).i64() ==
        Ints{3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10});
  // torch.roll(x, 5)
  CHECK(fold("roll", {x}, {{"shifts", Ints{5}}}).i64() ==
        Ints{7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6});
  // torch.roll(x, [1, -1], [0, 1])
  CHECK(fold("roll", {x}, {{"shifts", Ints{1, -1}}, {"dims", Ints{0, 1}}}).i64() ==
        Ints{9, 10, 11, 8, 1, 2, 3, 0, 5, 6, 7, 4});
}

TEST_CASE("unflatten splits a dim, inferring one size", "[eval][indexing]") {
  // x.unflatten(1, (2, -1))
  Folded r = fold("unflatten", {arange12()}, {{"dim", int64_t{1}}, {"sizes", Ints{2, -1}}});
  CHECK(r.shape() == Shape{3, 2, 2});
  CHECK(r.i64() == Ints{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

TEST_CASE("index_select and embedding pick rows by int64 index", "[eval][indexing]") {
  // torch.index_select(x, 1, torch.tensor([3, 0, 0]))
  Folded s = fold("index_select", {arange12(), int_constant({3}, {3, 0, 0})}, {{"dim", int64_t{1}}});
  CHECK(s.shape() == Shape{3, 3});
  CHECK(s.i64() == Ints{3, 0, 0, 7, 4, 4, 11, 8, 8});
  // F.embedding(torch.tensor([[3, 0], [1, 1]]), w) for w = [[0.5, 1.5, 2.5], [3, 4, 5], …]
  ConstantTensor w = ConstantTensor::from_floats({4, 3}, {0.5f, 1.5f, 2.5f, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Folded e = fold("embedding", {int_constant({2, 2}, {3, 0, 1, 1}), w});
  CHECK(e.shape() == Shape{2, 2, 3});
  CHECK(e.f32() == std::vector<float>{9, 10, 11, 0.5f, 1.5f, 2.5f, 3, 4, 5, 3, 4, 5});
}

TEST_CASE("an index out of range is an error of the fold, not a read out of bounds",
          "[eval][indexing]") {
  ConstantTensor w = ConstantTensor::from_floats({2, 1}, {1, 2});
  Folded e = fold("embedding", {int_constant({2}, {1, 2}), w});
  CHECK_FALSE(e.value);
  CHECK(e.error == "index 2 is out of range for the 2 rows of the weight");
  Folded s = fold("index_select", {arange12(), int_constant({1}, {-1})}, {{"dim", int64_t{0}}});
  CHECK_FALSE(s.value);
  CHECK(s.error == "index -1 is out of range for dim 0 of size 3");
}
