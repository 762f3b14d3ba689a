// Every shape function under attribute and dim values at the ends of int64's range: each call
// ends in a type or an error message, and the overflows torch itself wraps around (padding
// 2^63-1, dilation 2^62) are rejected by name. Run under the sanitizer build, UBSan checks
// that no arithmetic on dims or attributes overflows on the way.
#include <cstdint>
#include <limits>
#include <map>

#include <catch2/catch.hpp>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrSpec;
using graft::AttrType;
using graft::AttrValue;
using graft::OpRegistry;
using graft::OpSchema;
using graft::testing::Arg;
using graft::testing::infer;
using graft::testing::InferResult;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p62 = int64_t{1} << 62;
const int64_t kExtremes[] = {kMax, kMin, k2p62, -k2p62, int64_t{1} << 31, 0, -1, 1};

AttrValue ints(std::vector<int64_t> values) { return AttrValue{std::move(values)}; }

using Attrs = std::vector<std::pair<std::string, AttrValue>>;

/// Operands and attributes a call of the op accepts, which the test then varies one
/// attribute at a time.
struct BaseCall {
  std::vector<Arg> args;
  Attrs attrs;
};

/// One accepted call per op that has an integer attribute.
const BaseCall* base_call(const std::string& op) {
  static const std::map<std::string, BaseCall> calls = {
      {"conv2d", {{"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]", "f32[4]"}, {}}},
      {"conv2d_post", {{"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]", "f32[4]", nullptr}, {}}},
      {"max_pool2d", {{"f32[1, 3, 8, 8]"}, {{"kernel_size", ints({2, 2})}}}},
      {"avg_pool2d", {{"f32[1, 3, 8, 8]"}, {{"kernel_size", ints({2, 2})}}}},
      {"adaptive_avg_pool2d", {{"f32[1, 3, 8, 8]"}, {{"output_size", ints({2, 2})}}}},
      {"adaptive_max_pool2d", {{"f32[1, 3, 8, 8]"}, {{"output_size", ints({2, 2})}}}},
      {"mean", {{"f32[2, 3, 4]"}, {}}},
      {"sum", {{"f32[2, 3, 4]"}, {}}},
      {"amax", {{"f32[2, 3, 4]"}, {}}},
      {"amin", {{"f32[2, 3, 4]"}, {}}},
      {"cumsum", {{"f32[2, 3]"}, {{"dim", AttrValue{int64_t{1}}}}}},
      {"argmax", {{"f32[2, 3]"}, {}}},
      {"argmin", {{"f32[2, 3]"}, {}}},
      {"masked_fill", {{"f32[2, 3]", "bool[2, 3]"}, {{"value", AttrValue{int64_t{0}}}}}},
      {"full_like", {{"i64[2, 3]"}, {{"fill_value", AttrValue{int64_t{0}}}}}},
      {"arange", {{}, {{"start", AttrValue{int64_t{0}}}, {"end", AttrValue{int64_t{5}}}}}},
      {"flatten", {{"f32[2, 3, 4]"}, {}}},
      {"reshape", {{"f32[2, 3, 4]"}, {{"shape", ints({-1})}}}},
      {"permute", {{"f32[2, 3]"}, {{"dims", ints({1, 0})}}}},
      {"transpose",
       {{"f32[2, 3]"}, {{"dim0", AttrValue{int64_t{0}}}, {"dim1", AttrValue{int64_t{1}}}}}},
      {"unsqueeze", {{"f32[2, 3]"}, {{"dim", AttrValue{int64_t{0}}}}}},
      {"squeeze", {{"f32[1, 3]"}, {}}},
      {"interpolate", {{"f32[1, 3, 8, 8]"}, {{"size", ints({4, 4})}}}},
      {"conv1d", {{"f32[1, 3, 8]", "f32[4, 3, 3]", "f32[4]"}, {}}},
      {"conv3d", {{"f32[1, 3, 8, 8, 8]", "f32[4, 3, 3, 3, 3]", "f32[4]"}, {}}},
      {"conv_transpose1d", {{"f32[1, 3, 8]", "f32[3, 4, 3]", "f32[4]"}, {}}},
      {"conv_transpose2d", {{"f32[1, 3, 8, 8]", "f32[3, 4, 3, 3]", "f32[4]"}, {}}},
      {"conv_transpose3d", {{"f32[1, 3, 8, 8, 8]", "f32[3, 4, 3, 3, 3]", "f32[4]"}, {}}},
      {"group_norm", {{"f32[2, 6, 4]", nullptr, nullptr}, {{"num_groups", AttrValue{int64_t{3}}}}}},
      {"cat", {{"f32[2, 3]", "f32[2, 3]"}, {}}},
      {"softmax", {{"f32[2, 3]"}, {{"dim", AttrValue{int64_t{1}}}}}},
      {"log_softmax", {{"f32[2, 3]"}, {{"dim", AttrValue{int64_t{1}}}}}},
      {"layer_norm", {{"f32[2, 3]", nullptr, nullptr}, {{"normalized_shape", ints({3})}}}},
      {"add", {{"i64[2, 3]", "i64[2, 3]"}, {}}},
      {"sub", {{"i64[2, 3]", "i64[2, 3]"}, {}}},
      {"clamp", {{"i64[2, 3]"}, {{"min", AttrValue{int64_t{0}}}}}},
      // ** picking and repeating elements **
      {"slice", {{"f32[4, 6]"}, {{"dim", AttrValue{int64_t{1}}}}}},
      {"select", {{"f32[4, 6]"}, {{"dim", AttrValue{int64_t{1}}}, {"index", AttrValue{int64_t{2}}}}}},
      {"slice_scatter", {{"f32[4, 6]", "f32[4, 6]"}, {{"dim", AttrValue{int64_t{1}}}}}},
      {"select_scatter",
       {{"f32[4, 6]", "f32[4]"}, {{"dim", AttrValue{int64_t{1}}}, {"index", AttrValue{int64_t{2}}}}}},
      {"expand", {{"f32[4, 1]"}, {{"size", ints({4, 3})}}}},
      {"unflatten", {{"f32[4, 6]"}, {{"dim", AttrValue{int64_t{1}}}, {"sizes", ints({2, 3})}}}},
      {"roll", {{"f32[4, 6]"}, {{"shifts", ints({1})}}}},
      {"pad", {{"f32[2, 3, 4]"}, {{"pad", ints({1, 1})}}}},
      {"max_pool3d", {{"f32[1, 3, 8, 8, 8]"}, {{"kernel_size", ints({2, 2, 2})}}}},
      {"avg_pool3d", {{"f32[1, 3, 8, 8, 8]"}, {{"kernel_size", ints({2, 2, 2})}}}},
      {"adaptive_avg_pool3d", {{"f32[1, 3, 8, 8, 8]"}, {{"output_size", ints({2, 2, 2})}}}},
      {"flip", {{"f32[4, 6]"}, {{"dims", ints({1})}}}},
      {"index_select", {{"f32[4, 6]", "i64[3]"}, {{"dim", AttrValue{int64_t{0}}}}}},
  };
  auto it = calls.find(op);
  return it == calls.end() ? nullptr : &it->second;
}

bool takes_ints(const AttrSpec& spec) {
  return spec.type == AttrType::kInt || spec.type == AttrType::kInts ||
         spec.type == AttrType::kScalar;
}

/// The values the test gives an integer attribute: each extreme alone, and for lists also
/// beside an ordinary value, so the other dim's arithmetic runs too.
std::vector<AttrValue> extreme_values(const AttrSpec& spec) {
  std::vector<AttrValue> values;
  for (int64_t v : kExtremes) {
    if (spec.type != AttrType::kInts) {
      values.emplace_back(v);
    } else if (spec.fixed_length > 0) {
      // v everywhere, v first, v last: for int[2] {v, v}, {v, 1}, {2, v}.
      const auto n = static_cast<size_t>(spec.fixed_length);
      values.push_back(ints(std::vector<int64_t>(n, v)));
      if (n > 1) {
        std::vector<int64_t> first(n, 1), last(n, 2);
        first.front() = v;
        last.back() = v;
        values.push_back(ints(first));
        values.push_back(ints(last));
      }
    } else {
      values.push_back(ints({v}));
      values.push_back(ints({v, -1}));
      values.push_back(ints({1, v}));
    }
  }
  return values;
}

/// A call must end in a message or a type; from concrete operands, a concrete type (a wrapped
/// negative size would read as a symbol).
void check_outcome(const InferResult& r, bool concrete_operands = true) {
  INFO(r.str());
  if (!r.type) {
    CHECK(!r.error.empty());
  } else if (concrete_operands) {
    CHECK(graft::is_concrete(r.type->shape));
  }
}

}  // namespace

TEST_CASE("every shape function ends in a type or a message for extreme integer attributes",
          "[engine][shape_fns]") {
  size_t calls = 0;
  for (const OpSchema& op : OpRegistry::get().ops()) {
    bool has_ints = false;
    for (const AttrSpec& spec : op.attrs) has_ints = has_ints || takes_ints(spec);
    if (!has_ints) continue;
    const BaseCall* base = base_call(op.name);
    if (base == nullptr) FAIL("op " << op.name << " has integer attributes but no base call");
    REQUIRE(infer(op.name, base->args, base->attrs).type.has_value());
    for (const AttrSpec& spec : op.attrs) {
      if (!takes_ints(spec)) continue;
      for (const AttrValue& value : extreme_values(spec)) {
        Attrs attrs = base->attrs;
        std::erase_if(attrs, [&](const auto& a) { return a.first == spec.name; });
        attrs.emplace_back(spec.name, value);
        INFO(op.name << "(" << spec.name << "=" << graft::attr_to_string(value) << ")");
        check_outcome(infer(op.name, base->args, attrs));
        ++calls;
      }
    }
  }
  CHECK(calls > 500);
}

TEST_CASE("convolution and pooling arithmetic stays in range for extreme input dims",
          "[engine][shape_fns]") {
  // Dims no loader accepts (the size limit comes after the shape function), so the shape
  // functions' own arithmetic is what is exercised.
  for (const char* x : {"f32[1, 3, 9223372036854775807, 8]", "f32[1, 3, 4611686018427387904, 8]",
                        "f32[1, 3, 9223372036854775807, 9223372036854775807]"}) {
    INFO(x);
    for (int64_t v : kExtremes) {
      INFO("attribute value " << v);
      for (const char* attr : {"stride", "padding", "dilation"}) {
        check_outcome(infer("conv2d", {x, "f32[4, 3, 3, 3]"}, {{attr, ints({v, 1})}}));
        check_outcome(infer("conv_transpose2d", {x, "f32[3, 4, 3, 3]"}, {{attr, ints({v, 1})}}));
        check_outcome(
            infer("max_pool2d", {x}, {{"kernel_size", ints({3, 3})}, {attr, ints({v, 1})}}));
      }
      check_outcome(infer("max_pool2d", {x}, {{"kernel_size", ints({v, 3})}, {"ceil_mode", true}}));
      check_outcome(
          infer("avg_pool2d", {x},
                {{"kernel_size", ints({3, 3})}, {"stride", ints({v, 1})}, {"ceil_mode", true}}));
    }
  }
  for (const char* w : {"f32[4, 3, 9223372036854775807, 1]", "f32[4, 3, 4611686018427387905, 1]",
                        "f32[N, 4611686018427387904, 3, 3]"}) {
    INFO(w);
    for (int64_t v : kExtremes) {
      bool concrete = w[4] != 'N';
      check_outcome(infer("conv2d", {"f32[1, 3, 8, 8]", w}, {{"dilation", ints({v, 1})}}),
                    concrete);
      check_outcome(infer("conv2d", {"f32[1, 3, 8, 8]", w}, {{"groups", AttrValue{v}}}), concrete);
    }
  }
}

TEST_CASE("int64 overflow in shape arithmetic is an error naming the attribute",
          "[engine][shape_fns]") {
  auto [result, message] = GENERATE(table<InferResult, std::string>({
      // torch wraps these around and returns [1, 4, 4, 4] and [1, 4, 10, 10].
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]"}, {{"padding", ints({kMax, 0})}}),
       "padding=[9223372036854775807, 0] is out of range: the padded input overflows int64 in "
       "dim 2"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]"}, {{"dilation", ints({1, kMax})}}),
       "dilation=[1, 9223372036854775807] is out of range: the dilated kernel [3, 3] overflows "
       "int64 in dim 3"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]"}, {{"dilation", ints({k2p62, 1})}}),
       "dilation=[4611686018427387904, 1] is out of range: the dilated kernel [3, 3] overflows "
       "int64 in dim 2"},
      {infer("conv2d_post", {"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]"}, {{"padding", ints({1, kMax})}}),
       "padding=[1, 9223372036854775807] is out of range: the padded input overflows int64 in "
       "dim 3"},
      // conv2d_post read stride[0] of an empty list.
      {infer("conv2d_post", {"f32[1, 3, 8, 8]", "f32[4, 3, 3, 3]"}, {{"stride", ints({})}}),
       "stride must have 2 values, got []"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[N, 4611686018427387904, 3, 3]"},
             {{"groups", AttrValue{int64_t{2}}}}),
       "input has 3 channels, weight [N, 4611686018427387904, 3, 3] with groups=2 expects more "
       "than int64 can count"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[4, 3, 0, 0]"}),
       "weight [4, 3, 0, 0] has the kernel size [0, 0], expected at least 1 in each dim"},
      {infer("conv2d", {"f32[1, 3, 8, 8]", "f32[0, 3, 3, 3]"}),
       "weight has 0 output channels, expected at least groups=1"},
      {infer("conv2d_post", {"f32[1, 3, 8, 8]", "f32[4, 3, 1, 0]"}),
       "weight [4, 3, 1, 0] has the kernel size [1, 0], expected at least 1 in each dim"},
      {infer("max_pool2d", {"f32[1, 3, 8, 8]"},
             {{"kernel_size", ints({2, 2})}, {"stride", ints({kMax, 1})}}),
       "stride=[9223372036854775807, 1] is out of range (torch's pooling takes 32-bit sizes, up "
       "to 2147483647)"},
      {infer("avg_pool2d", {"f32[1, 3, 8, 8]"}, {{"kernel_size", ints({int64_t{1} << 32 | 2, 2})}}),
       "kernel_size=[4294967298, 2] is out of range (torch's pooling takes 32-bit sizes, up to "
       "2147483647)"},
      {infer("max_pool2d", {"f32[1, 3, 9223372036854775807, 8]"},
             {{"kernel_size", ints({3, 3})}, {"padding", ints({1, 1})}}),
       "input [1, 3, 9223372036854775807, 8] is too large to pool: its padded size overflows "
       "int64 in dim 2"},
      {infer("reshape", {"f32[N, 3]"}, {{"shape", ints({k2p62, k2p62, 4})}}),
       "cannot reshape [N, 3] (? elements) into [4611686018427387904, 4611686018427387904, 4] "
       "(more elements than int64 can count)"},
      {infer("cat", {"i8[4611686018427387904]", "i8[4611686018427387904]"}),
       "the sizes along dim 0 add up to more than int64 can count"},
  }));
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("window_output_size is nullopt where the window arithmetic would overflow",
          "[engine][shape_fns]") {
  using graft::window_output_size;
  CHECK(window_output_size(8, 3, 1, 1, 1, false) == 8);
  CHECK(window_output_size(8, 3, 2, 0, 1, true) == 4);
  CHECK(window_output_size(8, 3, kMax, 0, 1, true) == 1);
  CHECK(window_output_size(kMax, 3, 1, 1, 1, false) == std::nullopt);
  CHECK(window_output_size(8, 3, 1, kMax, 1, false) == std::nullopt);
  CHECK(window_output_size(8, 3, 1, 0, kMax, false) == std::nullopt);
  CHECK(window_output_size(8, kMax, 1, 0, 2, false) == std::nullopt);
  CHECK(window_output_size(8, 0, 1, 0, 1, false) == std::nullopt);
  CHECK(window_output_size(k2p62 + 8, 1, k2p62, 0, 1, true) == 2);
}
