// Shape functions of slice, select, expand, expand_as, unflatten, roll, flip, embedding,
// index_select, slice_scatter and select_scatter beyond the golden cases: symbolic dims, and
// the wording of every rejection of a bad attribute or operand (the loader locates these
// messages at the node).
#include <catch2/catch.hpp>

#include <limits>

#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }
AttrValue i(int64_t value) { return AttrValue{value}; }
const int64_t kMax = std::numeric_limits<int64_t>::max();

}  // namespace

TEST_CASE("indexing ops keep a symbol where its value is not needed", "[engine][shape_fns]") {
  CHECK(infer("slice", {"f32[N, 197, 768]"}, {{"dim", i(1)}, {"start", i(0)}, {"end", i(1)}})
            .str() == "float32[N, 1, 768]");
  CHECK(infer("slice", {"f32[N, 5]"}, {{"dim", i(0)}, {"start", i(0)}, {"end", i(kMax)}}).str() ==
        "float32[N, 5]");
  CHECK(infer("slice", {"f32[N, 5]"}, {{"dim", i(0)}, {"start", i(1)}}).str() ==
        "float32[?, 5]");
  CHECK(infer("select", {"f32[N, 197, 768]"}, {{"dim", i(1)}, {"index", i(0)}}).str() ==
        "float32[N, 768]");
  CHECK(infer("select", {"f32[N, 3]"}, {{"dim", i(0)}, {"index", i(-1)}}).str() ==
        "float32[3]");
  CHECK(infer("expand", {"f32[1, 1, 768]"}, {{"size", ints({5, -1, -1})}}).str() ==
        "float32[5, 1, 768]");
  CHECK(infer("expand_as", {"f32[1, 1, 768]", "f32[N, 1, 768]"}).str() == "float32[N, 1, 768]");
  CHECK(infer("unflatten", {"f32[N, 12]"}, {{"dim", i(0)}, {"sizes", ints({-1, 1})}}).str() ==
        "float32[N, 1, 12]");
  CHECK(infer("roll", {"f32[N, 56, 56, 96]"}, {{"shifts", ints({-3, -3})}, {"dims", ints({1, 2})}})
            .str() == "float32[N, 56, 56, 96]");
  CHECK(infer("embedding", {"i64[N, T]", "f32[100, 16]"}).str() == "float32[N, T, 16]");
  CHECK(infer("index_select", {"f32[169, 3]", "i64[2401]"}, {{"dim", i(0)}}).str() ==
        "float32[2401, 3]");
}

TEST_CASE("indexing ops explain a bad attribute", "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("slice", {"f32[3, 5]"}, {{"dim", i(2)}}),
       "dim 2 out of range for rank 2 (expected -2 to 1)"},
      {infer("slice", {"f32[3, 5]"}, {{"step", i(0)}}), "step must be positive, got 0"},
      {infer("select", {"f32[3, 5]"}, {{"dim", i(1)}, {"index", i(5)}}),
       "index 5 out of range for dim 1 of size 5 (expected -5 to 4)"},
      {infer("select", {"f32[]"}, {{"dim", i(0)}, {"index", i(0)}}),
       "select() cannot be applied to a 0-dim tensor"},
      {infer("expand", {"f32[3, 2]"}, {{"size", ints({3, 4})}}),
       "cannot expand [3, 2] to [3, 4]: dim 1 has size 2, which is not 1"},
      {infer("expand", {"f32[3, 1]"}, {{"size", ints({3})}}),
       "the number of sizes [3] (1) must be at least the input's rank (2)"},
      {infer("expand", {"f32[3, 1]"}, {{"size", ints({-1, 3, 1})}}),
       "size -1 for new leading dim 0 in [-1, 3, 1] (new dims cannot be -1)"},
      {infer("expand_as", {"f32[3, 2]", "f32[3, 5]"}),
       "cannot expand [3, 2] to [3, 5]: dim 1 has size 2, which is not 1"},
      {infer("unflatten", {"f32[4, 6]"}, {{"dim", i(1)}, {"sizes", ints({4, -1})}}),
       "sizes [4, -1] do not multiply to the size 6 of dim 1"},
      {infer("roll", {"f32[3, 4]"}, {{"shifts", ints({1, 2})}, {"dims", ints({0})}}),
       "shifts [1, 2] and dims [0] must have the same length (or dims empty and one shift)"},
      {infer("flip", {"f32[3, 4]"}, {{"dims", ints({1, -1})}}),
       "dim 1 appears more than once in [1, -1]"},
      {infer("embedding", {"f32[3]", "f32[10, 4]"}),
       "input has dtype float32, expected int64"},
      {infer("embedding", {"i64[3]", "f32[10]"}),
       "weight has shape [10], expected 2 dims (num_embeddings, embedding_dim)"},
      {infer("index_select", {"f32[3, 4]", "i64[2, 2]"}, {{"dim", i(0)}}),
       "index has shape [2, 2], expected 1 dim (or 0)"},
  }));
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("slice_scatter and select_scatter give input's type once src fits the part it replaces",
          "[engine][shape_fns]") {
  // MViT's attn[:, :, 1:, 1:] += rel_pos at a symbolic batch
  CHECK(infer("slice_scatter", {"f32[N, 8, 50, 50]", "f32[N, 8, 50, 49]"},
              {{"dim", i(3)}, {"start", i(1)}, {"end", i(kMax)}})
            .str() == "float32[N, 8, 50, 50]");
  // a symbolic dim of input matches any size of src
  CHECK(infer("slice_scatter", {"f32[2, T]", "f32[2, 3]"}, {{"dim", i(1)}, {"start", i(1)}})
            .str() == "float32[2, T]");
  CHECK(infer("select_scatter", {"i64[N, 3]", "i64[N]"}, {{"dim", i(1)}, {"index", i(-1)}})
            .str() == "int64[N, 3]");
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("slice_scatter", {"f32[3, 5]", "f32[3, 3]"},
             {{"dim", i(1)}, {"start", i(1)}, {"end", i(3)}}),
       "src has shape [3, 3], expected the shape [3, 2] of the part of input it replaces"},
      {infer("slice_scatter", {"f32[N, 5]", "f32[N, 5, 1]"}, {{"dim", i(1)}}),
       "src has shape [N, 5, 1], expected the shape [N, 5] of the part of input it replaces"},
      {infer("select_scatter", {"f32[3, 5]", "f32[1, 5]"}, {{"dim", i(0)}, {"index", i(1)}}),
       "src has shape [1, 5], expected the shape [5] of the part of input it replaces"},
      {infer("select_scatter", {"f32[3, 5]", "i64[5]"}, {{"dim", i(0)}, {"index", i(1)}}),
       "src has dtype int64, expected input's dtype float32"},
      {infer("select_scatter", {"f32[3, 5]", "f32[5]"}, {{"dim", i(0)}, {"index", i(3)}}),
       "index 3 out of range for dim 0 of size 3 (expected -3 to 2)"},
      {infer("slice_scatter", {"f32[3, 5]", "f32[3, 5]"}, {{"step", i(-1)}}),
       "step must be positive, got -1"},
  }));
  CHECK(result.str() == "error: " + message);
}
