// Strided views vs the reference: transpose, permute, slice, select and reshape of plain data
// are free views (runtime/strided_view.h), read as they are by attention and through one dense
// copy by every other kernel; attention reading the heads of a packed qkv projection and
// writing them merged leaves no copy between the projections.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;

Node* slice(GraphBuilder& b, Node* x, int64_t dim, int64_t start, int64_t end, int64_t step = 1) {
  return b.call("slice", {in(x)}, {{"dim", dim}, {"start", start}, {"end", end}, {"step", step}});
}
Node* transpose(GraphBuilder& b, Node* x, int64_t d0, int64_t d1) {
  return b.call("transpose", {in(x)}, {{"dim0", d0}, {"dim1", d1}});
}
Node* reshape(GraphBuilder& b, Node* x, Ints shape) {
  return b.call("reshape", {in(x)}, {{"shape", std::move(shape)}});
}

/// The steps that move data without computing: the copies views were meant to avoid.
std::vector<std::string> copies(const runtime::Executable& exe) {
  std::vector<std::string> names;
  for (const runtime::StepInfo& s : exe.steps()) {
    const bool output_copy = s.name.size() > 7 && s.name.compare(s.name.size() - 7, 7, ".output") == 0;
    if ((s.op == "reorder" && !output_copy) || s.op == "transpose" || s.op == "permute" ||
        s.op == "slice" || s.op == "select" || s.op == "reshape") {
      names.push_back(s.name);
    }
  }
  return names;
}

}  // namespace

TEST_CASE("views of views feeding kernels, outputs and each other match the reference",
          "[runtime][shape][views]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 6, 5, 4});
  Node* y = b.input("y", {5, 2, 4});
  Node* t = transpose(b, x, 1, 2);                   // [2, 5, 6, 4], strided
  Node* s = slice(b, t, 2, 1, 6, 2);                 // [2, 5, 3, 4]: a step on a strided view
  Node* sel = b.call("select", {in(s)}, {{"dim", int64_t{2}}, {"index", int64_t{-1}}});  // [2, 5, 4]
  Node* p = b.call("permute", {in(sel)}, {{"dims", Ints{1, 0, 2}}});                    // [5, 2, 4]
  Node* sum = b.call("add", {in(p), in(y)});         // a binary kernel reads a dense copy
  Node* flat = b.call("flatten", {in(t)}, {{"start_dim", int64_t{2}}});  // needs a copy
  Node* split = reshape(b, slice(b, x, 3, 2, 4), {2, 3, 2, 5, 2});       // a view of a slice
  Node* lin = b.call("linear", {in(slice(b, x, 0, 1, 2)), in(b.constant("w", {3, 4}, 1))});
  Node* relu = b.call("relu", {in(transpose(b, sel, 0, 1))});
  b.output({t, s, sel, p, sum, flat, split, lin, relu});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 2)) == "");
}

TEST_CASE("a slice of a large constant reads it in place", "[runtime][shape][views]") {
  // 8.8 MB, more than the folder computes ahead: the slices are views of the weights' bytes.
  GraphBuilder b;
  Node* x = b.input("x", {1100, 1000});
  Node* w = b.constant("w", {2, 1100, 1000}, 3);
  Node* second = b.call("select", {in(w)}, {{"dim", int64_t{0}}, {"index", int64_t{1}}});
  Node* cols = slice(b, second, 1, 7, 1000, 3);
  b.output({b.call("add", {in(x), in(second)}), b.call("relu", {in(cols)})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 5)) == "");
}

TEST_CASE("attention reads the heads of a packed qkv projection and writes them merged",
          "[runtime][attention][views]") {
  // GPT-style: [B, T, 3C] split along the last dim, heads by reshape + transpose(1, 2); and
  // nn.MultiheadAttention's sequence-first spelling: [T, B, 3C], heads by reshape to
  // [T, B * H, D] + transpose(0, 1). That reshape merges B with the heads, whose strides in
  // the packed projection do not chain for B > 1: there torch copies each of q, k and v
  // (contiguous()), and so does graft; the merge after attention is free in every case.
  const int64_t seq = 7, heads = 3, head_dim = 4, width = heads * head_dim;
  for (auto [seq_first, batch] : {std::pair{false, 2}, {true, 1}, {true, 2}}) {
    for (bool causal : {false, true}) {
      GraphBuilder b;
      Node* x = b.input("x", seq_first ? Shape{seq, batch, width} : Shape{batch, seq, width});
      Node* qkv = b.call("linear", {in(x), in(b.constant("w_qkv", {3 * width, width}, 1)),
                                    in(b.constant("b_qkv", {3 * width}, 2))});
      auto head_split = [&](int64_t part) {
        Node* s = slice(b, qkv, 2, part * width, (part + 1) * width);
        return seq_first ? transpose(b, reshape(b, s, {seq, batch * heads, head_dim}), 0, 1)
                         : transpose(b, reshape(b, s, {batch, seq, heads, head_dim}), 1, 2);
      };
      Node* att = b.call("scaled_dot_product_attention",
                         {in(head_split(0)), in(head_split(1)), in(head_split(2)), Input::none()},
                         {{"is_causal", causal}});
      Node* merged = seq_first ? reshape(b, transpose(b, att, 0, 1), {seq, batch, width})
                               : b.call("flatten", {in(transpose(b, att, 1, 2))},
                                        {{"start_dim", int64_t{2}}});
      b.output({b.call("linear", {in(merged), in(b.constant("w_out", {width, width}, 3))})});
      INFO("sequence first " << seq_first << ", batch " << batch << ", causal " << causal);
      std::unique_ptr<runtime::Executable> exe;
      REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 4, -1, 1), {}, 1e-4,
                                      1e-4, &exe) == "");
      INFO(exe->dump());
      CHECK(copies(*exe).size() == (seq_first && batch > 1 ? 3 : 0));
      CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 6, -1, 1)) == "");
    }
  }
}

TEST_CASE("attention with users that do not all transpose it writes it dense",
          "[runtime][attention][views]") {
  GraphBuilder b;
  Node* q = b.input("q", {2, 3, 5, 4});
  Node* k = b.input("k", {2, 3, 6, 4});
  Node* v = b.input("v", {2, 3, 6, 4});
  Node* att = b.call("scaled_dot_product_attention", {in(q), in(k), in(v), Input::none()});
  // Two different transposes, and one that moves the element dim (rows would not be unit-stride).
  Node* a = transpose(b, att, 1, 2);
  Node* c = transpose(b, att, 0, 1);
  b.output({a, c, b.call("relu", {in(att)})});
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 8)) == "");
  GraphBuilder b2;
  Node* q2 = b2.input("q", {2, 3, 5, 4});
  Node* att2 = b2.call("scaled_dot_product_attention", {in(q2), in(q2), in(q2), Input::none()});
  b2.output({transpose(b2, att2, 2, 3)});
  CHECK(check_all_modes(b2.graph(), random_inputs(b2.graph(), 9)) == "");
}
