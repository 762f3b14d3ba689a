// scaled_dot_product_attention's blocked kernel vs the reference: broadcast batch dims, bool,
// float and causal masks, queries and keys of different lengths, more rows and keys than one
// block holds (the running softmax rescales), and rows whose every key is masked (NaN, or the
// average of the value rows with a finite mask_fill).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

struct Case {
  Shape q, k, v, mask;
  DType mask_dtype = DType::kFloat32;
  bool causal = false;
  bool with_scale = false;
  double fill = -std::numeric_limits<double>::infinity();
};

std::string check(const Case& c, uint64_t seed) {
  GraphBuilder b;
  Node* q = b.input("q", c.q);
  Node* k = b.input("k", c.k);
  Node* v = b.input("v", c.v);
  Node* mask = c.mask.empty() ? nullptr : b.input("mask", c.mask, c.mask_dtype);
  std::map<std::string, AttrValue> attrs = {{"is_causal", c.causal}};
  if (c.with_scale) attrs["scale"] = 0.3;
  if (!std::isinf(c.fill)) attrs["mask_fill"] = c.fill;
  b.output({b.call("scaled_dot_product_attention",
                   {in(q), in(k), in(v), mask ? in(mask) : Input::none()}, attrs)});
  // Scores of a few units, so that the softmax is neither uniform nor one-hot.
  return check_all_modes(b.graph(), random_inputs(b.graph(), seed, -2, 2, 2));
}

/// Attention of 3 queries over 5 keys of width 4 whose row 0 has every key hidden and rows 1
/// and 2 every key visible, with `attrs`: checked against the reference, then its inputs and
/// the runtime's output.
std::pair<std::vector<eval::Tensor>, eval::Tensor> run_with_row_0_hidden(
    const std::map<std::string, AttrValue>& attrs) {
  GraphBuilder b;
  Node* q = b.input("q", {1, 3, 4});
  Node* k = b.input("k", {1, 5, 4});
  Node* v = b.input("v", {1, 5, 4});
  Node* mask = b.input("mask", {3, 5}, DType::kBool);
  b.output({b.call("scaled_dot_product_attention", {in(q), in(k), in(v), in(mask)}, attrs)});
  std::vector<eval::Tensor> inputs = random_inputs(b.graph(), 1);
  uint8_t* m = inputs[3].b8();
  for (int j = 0; j < 15; ++j) m[j] = j >= 5;
  runtime::CompileOptions options;
  std::unique_ptr<runtime::Executable> exe;
  REQUIRE(check_against_reference(b.graph(), inputs, options, 1e-4, 1e-4, &exe) == "");
  DiagnosticEngine diags;
  auto out = exe->run(inputs, diags);
  REQUIRE(out);
  return {std::move(inputs), std::move((*out)[0])};
}

}  // namespace

TEST_CASE("attention matches the reference with and without masks", "[runtime][attention]") {
  auto c = GENERATE(values<Case>({
      {{2, 3, 7, 8}, {2, 3, 7, 8}, {2, 3, 7, 8}, {}},
      {{2, 3, 7, 8}, {2, 3, 9, 8}, {2, 3, 9, 5}, {}, DType::kFloat32, false, true},
      {{2, 3, 7, 8}, {2, 3, 9, 8}, {2, 3, 9, 8}, {2, 1, 1, 9}},                  // padding mask
      {{2, 3, 7, 8}, {2, 3, 9, 8}, {2, 3, 9, 8}, {7, 9}, DType::kBool},          // bool, broadcast
      {{1, 2, 6, 4}, {1, 2, 6, 4}, {1, 2, 6, 4}, {}, DType::kFloat32, true},     // causal
      {{1, 2, 4, 4}, {1, 2, 6, 4}, {1, 2, 6, 4}, {}, DType::kFloat32, true},     // causal, L < S
      {{6, 5}, {3, 9, 5}, {9, 4}, {}},                                          // broadcast batch
  }));
  INFO("q " << shape_to_string(c.q) << " k " << shape_to_string(c.k) << " v "
            << shape_to_string(c.v) << " mask " << shape_to_string(c.mask) << " causal "
            << c.causal);
  CHECK(check(c, 3) == "");
}

TEST_CASE("attention over more rows and keys than one block holds matches the reference",
          "[runtime][attention]") {
  // 300 keys: two key blocks, so each row's running maximum and sum are rescaled; 300 rows:
  // two row blocks of 150; causal skips the key blocks after a row block.
  for (bool causal : {false, true}) {
    Case c{{1, 2, 300, 16}, {1, 2, 300, 16}, {1, 2, 300, 16}, {}, DType::kFloat32, causal};
    INFO("causal " << causal);
    CHECK(check(c, 5) == "");
  }
  Case masked{{1, 1, 140, 8}, {1, 1, 520, 8}, {1, 1, 520, 8}, {1, 1, 140, 520}, DType::kBool};
  CHECK(check(masked, 7) == "");
}

TEST_CASE("attention rows whose keys are all masked are NaN, as torch's", "[runtime][attention]") {
  auto [inputs, out] = run_with_row_0_hidden({});
  const float* o = out.f32();
  for (int c = 0; c < 4; ++c) {
    CHECK(std::isnan(o[c]));
    CHECK(std::isfinite(o[4 + c]));
    CHECK(std::isfinite(o[8 + c]));
  }
}

TEST_CASE("attention with a finite mask_fill matches the reference", "[runtime][attention]") {
  // -1e9 as masked_fill(mask, -1e9) writes it; 0.5, among the scores, so that the keys a causal
  // mask hides weigh as much as visible ones and the skipped key blocks must be folded in.
  for (double fill : {-1e9, 0.5}) {
    INFO("mask_fill " << fill);
    Case bool_mask{{2, 3, 7, 8}, {2, 3, 9, 8}, {2, 3, 9, 8}, {7, 9}, DType::kBool};
    bool_mask.fill = fill;
    CHECK(check(bool_mask, 11) == "");
    Case causal{{1, 2, 300, 16}, {1, 2, 300, 16}, {1, 2, 300, 16}, {}, DType::kFloat32, true};
    causal.fill = fill;
    CHECK(check(causal, 13) == "");
  }
}

TEST_CASE("attention rows whose keys are all masked with a finite fill average the values",
          "[runtime][attention]") {
  auto [inputs, out] = run_with_row_0_hidden({{"mask_fill", -1e9}});
  for (int c = 0; c < 4; ++c) {
    float mean = 0;
    for (int j = 0; j < 5; ++j) mean += inputs[2].f32()[j * 4 + c] / 5;
    CHECK(out.f32()[c] == Approx(mean).epsilon(1e-5));
  }
}

TEST_CASE("a constant causal mask runs as is_causal and matches the reference",
          "[runtime][attention]") {
  // GPT's mask: a 0/1 lower-triangular buffer compared with 0, which the compiler folds into a
  // constant bool matrix; the kernel recognises it and skips the hidden key blocks.
  for (DType mask_dtype : {DType::kBool, DType::kFloat32}) {
    GraphBuilder b;
    Node* q = b.input("q", {1, 2, 150, 8});
    const int64_t n = 150;
    std::vector<float> tril(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const bool visible = j <= i;
        tril[static_cast<size_t>(i * n + j)] =
            mask_dtype == DType::kBool ? (visible ? 1.0f : 0.0f)
                                       : (visible ? 0.0f : -std::numeric_limits<float>::infinity());
      }
    }
    b.graph().constants().set("tril", ConstantTensor::from_floats({n, n}, tril));
    Node* buffer = b.graph().add_get_attr("tril", "tril");
    Node* mask = mask_dtype == DType::kBool ? b.call("ne", {in(buffer), scalar(0.0)}) : buffer;
    b.output({b.call("scaled_dot_product_attention", {in(q), in(q), in(q), in(mask)})});
    INFO("mask " << dtype_name(mask_dtype));
    std::vector<eval::Tensor> inputs = random_inputs(b.graph(), 9, -2, 2);
    CHECK(check_all_modes(b.graph(), inputs) == "");
    std::unique_ptr<runtime::Executable> exe;
    REQUIRE(check_against_reference(b.graph(), inputs, {}, 1e-4, 1e-4, &exe) == "");
    bool causal = false;
    for (const runtime::StepInfo& step : exe->steps()) {
      causal = causal || step.impl.find("causal mask as is_causal") != std::string::npos;
    }
    CHECK(causal);
  }
}
