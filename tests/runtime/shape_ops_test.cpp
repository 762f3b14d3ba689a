// Data movement vs the reference: views (flatten, reshape, squeeze, unsqueeze) of plain and
// blocked tensors, permute/transpose, and cat of plain and blocked pieces.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("views of a blocked conv output match the reference", "[runtime][shape]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 16, 3, 3});
  Node* conv = b.call("conv2d", {in(x), in(b.constant("w", {24, 16, 1, 1}, 1))});
  Node* flat = b.call("flatten", {in(conv)}, {{"start_dim", int64_t{1}}});
  Node* resh = b.call("reshape", {in(conv)}, {{"shape", std::vector<int64_t>{2, -1, 9}}});
  Node* unsq = b.call("unsqueeze", {in(resh)}, {{"dim", int64_t{1}}});
  Node* sq = b.call("squeeze", {in(unsq)}, {{"dim", int64_t{1}}});
  Node* lin = b.call("linear", {in(flat), in(b.constant("fc", {5, 216}, 2))});
  b.output({lin, sq, unsq});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 4)) == "");
}

TEST_CASE("permute and transpose match the reference", "[runtime][shape]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3, 4, 5});
  Node* p = b.call("permute", {in(x)}, {{"dims", std::vector<int64_t>{0, 2, 3, 1}}});
  Node* t = b.call("transpose", {in(x)}, {{"dim0", int64_t{-1}}, {"dim1", int64_t{1}}});
  Node* tt = b.call("transpose", {in(p)}, {{"dim0", int64_t{0}}, {"dim1", int64_t{3}}});
  b.output({p, t, tt});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 4)) == "");
}

TEST_CASE("cat matches the reference for plain, blocked and mixed pieces", "[runtime][shape]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 16, 5, 5});
  Node* y = b.input("y", {2, 3, 5, 5});
  Node* c1 = b.call("conv2d", {in(x), in(b.constant("w1", {16, 16, 1, 1}, 1))});
  Node* c2 = b.call("conv2d", {in(x), in(b.constant("w2", {32, 16, 3, 3}, 2))}, {{"padding", int64_t{1}}});
  Node* blocked = b.call("cat", {in(c1), in(c2)}, {{"dim", int64_t{1}}});
  Node* mixed = b.call("cat", {in(c1), in(y), in(x)}, {{"dim", int64_t{1}}});
  Node* plain = b.call("cat", {in(x), in(x)}, {{"dim", int64_t{-1}}});
  Node* batch = b.call("cat", {in(y), in(y), in(y)}, {{"dim", int64_t{0}}});
  b.output({blocked, mixed, plain, batch});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 4)) == "");
}
