// The data-movement reference kernels on int64 and bool as well as float32, through the
// constant folder (which is the reference): results are exact, element for element, and equal
// to torch 1.13's (each expected value names the torch call that gives it).
#include <catch2/catch.hpp>

#include "tests/eval/folding.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("int64 constants fold exactly through permute, transpose, reshape and cat",
          "[eval][movement]") {
  const int64_t big = (int64_t{1} << 53) + 1;  // not a float32 nor a float64 value
  ConstantTensor x = int_constant({2, 3}, {0, 1, 2, 3, 4, big});
  // torch.tensor([[0, 1, 2], [3, 4, 2**53 + 1]]).t() -> [[0, 3], [1, 4], [2, 2**53 + 1]]
  CHECK(fold("transpose", {x}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}).i64() ==
        Ints{0, 3, 1, 4, 2, big});
  CHECK(fold("permute", {x}, {{"dims", Ints{1, 0}}}).i64() == Ints{0, 3, 1, 4, 2, big});
  CHECK(fold("reshape", {x}, {{"shape", Ints{3, 2}}}).i64() == Ints{0, 1, 2, 3, 4, big});
  // torch.cat([x, x[:, :1]], 1)
  Folded c = fold("cat", {x, int_constant({2, 1}, {-7, -8})}, {{"dim", int64_t{1}}});
  CHECK(c.shape() == Shape{2, 4});
  CHECK(c.i64() == Ints{0, 1, 2, -7, 3, 4, big, -8});
}

TEST_CASE("bool constants fold through views, permutes and cats", "[eval][movement]") {
  ConstantTensor m = bool_constant({2, 2}, {1, 0, 0, 1});
  CHECK(fold("transpose", {m}, {{"dim0", int64_t{1}}, {"dim1", int64_t{0}}}).b8() ==
        std::vector<int>{1, 0, 0, 1});
  CHECK(fold("reshape", {m}, {{"shape", Ints{4}}}).b8() == std::vector<int>{1, 0, 0, 1});
  CHECK(fold("cat", {m, bool_constant({2, 1}, {1, 1})}, {{"dim", int64_t{1}}}).b8() ==
        std::vector<int>{1, 0, 1, 0, 1, 1});
}

TEST_CASE("a float32 formula on int64 constants is left unfolded with a reason",
          "[eval][movement]") {
  Folded r = fold("relu", {int_constant({2}, {-1, 2})});
  CHECK_FALSE(r.value);
  CHECK(r.error == "the reference kernel of 'relu' computes float32 only");
}
