// Shape functions of the comparison, selection and dtype ops beyond the golden cases: symbolic
// dims, the bool masks graft requires where torch 1.13 still takes others, and the wording of
// rejections, which the loader reports at the node (model_json_test.cpp's style).
#include <catch2/catch.hpp>

#include "engine/io/model_json.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue i(int64_t value) { return AttrValue{value}; }
AttrValue str(const char* s) { return AttrValue{std::string(s)}; }

}  // namespace

TEST_CASE("comparison, selection and dtype ops keep symbolic dims", "[engine][shape_fns]") {
  CHECK(infer("eq", {"f32[B, 1, T, T]", 0}).str() == "bool[B, 1, T, T]");
  CHECK(infer("lt", {"i64[N, 1]", "f32[5]"}).str() == "bool[N, 5]");
  CHECK(infer("logical_and", {"bool[N, 4]", "i64[4]"}).str() == "bool[N, 4]");
  CHECK(infer("masked_fill", {"f32[B, H, T, T]", "bool[1, 1, T, T]"},
              {{"value", -INFINITY}})
            .str() == "float32[B, H, T, T]");
  CHECK(infer("where", {"bool[N, 1]", "f32[3]", 0}).str() == "float32[N, 3]");
  CHECK(infer("full_like", {"bool[B, T]"}, {{"fill_value", 0.0}, {"dtype", str("float32")}})
            .str() == "float32[B, T]");
  CHECK(infer("to", {"bool[B, T]"}, {{"dtype", str("int64")}}).str() == "int64[B, T]");
  CHECK(infer("cumsum", {"bool[B, T]"}, {{"dim", i(1)}}).str() == "int64[B, T]");
  CHECK(infer("argmax", {"f32[B, T, V]"}, {{"dim", i(-1)}}).str() == "int64[B, T]");
  CHECK(infer("argmin", {"f32[B, T]"}, {{"keepdim", true}}).str() == "int64[1, 1]");
  CHECK(infer("amin", {"f32[B, T, C]"}, {{"dim", AttrValue{std::vector<int64_t>{1}}}}).str() ==
        "float32[B, C]");
}

TEST_CASE("comparison, selection and dtype ops explain what they expected",
          "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("masked_fill", {"f32[2, 3]", "f32[2, 3]"}, {{"value", 0.0}}),
       "mask has dtype float32, expected bool"},
      {infer("masked_fill", {"f32[2, 3]", "i64[3]"}, {{"value", 0.0}}),
       "mask has dtype int64, expected bool"},
      {infer("masked_fill", {"f32[2, 3]", "bool[3, 2]"}, {{"value", 0.0}}),
       "shapes [2, 3] and [3, 2] cannot be broadcast"},
      {infer("masked_fill", {"i64[2]", "bool[2]"}, {{"value", -INFINITY}}),
       "value -inf cannot be converted to int64 without overflow"},
      {infer("masked_fill", {"f32[2]", "bool[2]"}, {{"value", 1e300}}),
       "value 1e+300 cannot be converted to float32 without overflow"},
      {infer("where", {"u8[2]", "f32[2]", "f32[2]"}), "condition has dtype uint8, expected bool"},
      {infer("where", {"bool[2, 3]", "f32[3, 2]", 0}),
       "shapes [2, 3] and [3, 2] cannot be broadcast"},
      {infer("full_like", {"f32[2]"}, {{"fill_value", 0}, {"dtype", str("flaot32")}}),
       "unknown dtype 'flaot32' (known: float32, float64, float16, bfloat16, int64, int32, "
       "int16, int8, uint8, bool)"},
      {infer("full_like", {"f32[2]"}, {{"fill_value", NAN}, {"dtype", str("int64")}}),
       "fill_value nan cannot be converted to int64 without overflow"},
      {infer("to", {"f32[2]"}, {{"dtype", str("long")}}),
       "unknown dtype 'long' (known: float32, float64, float16, bfloat16, int64, int32, int16, "
       "int8, uint8, bool)"},
      {infer("cumsum", {"f32[2, 3]"}, {{"dim", i(2)}}),
       "dim 2 out of range for rank 2 (expected -2 to 1)"},
      {infer("argmax", {"bool[3]"}), "input has dtype bool, which torch has no argmax kernel for"},
      {infer("argmin", {"f32[0, 3]"}), "input [0, 3] is empty; give the dim to reduce"},
      {infer("argmax", {"f32[0, 3]"}, {{"dim", i(0)}}),
       "dim 0 of input [0, 3] is empty: there is no index to give"},
      {infer("amin", {"f32[0, 3]"}), "cannot take the minimum over dim 0 of size 0 (input [0, 3])"},
      {infer("logical_and", {"bool[2]", "bool[3]"}), "shapes [2] and [3] cannot be broadcast"},
  }));
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("a bad dtype, mask or value is reported at its node when a model loads",
          "[engine][shape_fns][model_json]") {
  auto model = [](const std::string& call) {
    return R"({"format": "graft.model", "version": 1, "nodes": [
      {"name": "x", "op": "placeholder", "target": "x", "meta": {"shape": [2, 3], "dtype": "float32"}},
      {"name": "y", "op": "call_function", )" +
           call + R"(},
      {"name": "output", "op": "output", "target": "output", "args": [[{"node": "y"}]]}]})";
  };
  auto rejected = [](const std::string& text) {
    graft::DiagnosticEngine diags;
    CHECK_FALSE(graft::load_model_from_string(text, "model.json", ".", diags));
    return diags.render();
  };
  CHECK(rejected(model(R"("target": "to", "args": [{"node": "x"}, "flaot32"])")) ==
        "model.json: /nodes/1: error: node 'y' (to): unknown dtype 'flaot32' (known: float32, "
        "float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool)\n");
  CHECK(rejected(model(R"("target": "masked_fill", "args": [{"node": "x"}, {"node": "x"}, "-inf"])")) ==
        "model.json: /nodes/1: error: node 'y' (masked_fill): mask has dtype float32, expected "
        "bool\n");
}
