// The reference kernels of the comparison, selection and dtype ops (reference_logic.cpp,
// reference_scan.cpp) and amin, on float32, int64 and bool: exact results equal to torch
// 1.13's, NaN and infinities included (each expected value names the torch call that gives it).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <variant>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "eval/reference.h"

using namespace graft;
using eval::Tensor;

namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

using Operand = std::variant<Tensor, Scalar>;

Scalar integer(int64_t v) { return Scalar{static_cast<double>(v), true}; }
Scalar real(double v) { return Scalar{v, false}; }

/// `op` on `operands` (tensors or scalar literals) with `attrs`, through shape inference and
/// the reference kernel; fails the test on an error.
Tensor run(const std::string& op, const std::vector<Operand>& operands,
           const std::map<std::string, AttrValue>& attrs = {}) {
  const OpSchema* schema = OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  Graph graph;
  std::vector<Input> inputs;
  std::vector<eval::RefOperand> refs(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    if (const auto* t = std::get_if<Tensor>(&operands[i])) {
      Node* n = graph.add_placeholder("x" + std::to_string(i), TensorType{t->dtype(), t->shape()});
      inputs.push_back(Input::of(n));
      refs[i].tensor = t;
    } else {
      const Scalar& s = std::get<Scalar>(operands[i]);
      inputs.push_back(Input::of(s));
      refs[i].scalar = s.value;
    }
  }
  std::vector<AttrValue> values = Graph::default_attrs(*schema);
  for (const auto& [name, value] : attrs) {
    int index = schema->attr_index(name);
    REQUIRE(index >= 0);
    values[static_cast<size_t>(index)] = value;
  }
  auto node = Graph::make_detached_call(*schema, std::move(inputs), std::move(values));
  std::string error;
  std::optional<TensorType> type = infer_node_type(*node, &error);
  INFO(error);
  REQUIRE(type);
  Tensor out = Tensor::zeros(type->dtype, type->shape);
  INFO(error);
  REQUIRE(eval::reference_op(*node, refs, out, &error));
  return out;
}

std::vector<int> bools_of(const Tensor& t) {
  REQUIRE(t.dtype() == DType::kBool);
  return std::vector<int>(t.b8(), t.b8() + t.numel());
}
std::vector<int64_t> ints_of(const Tensor& t) {
  REQUIRE(t.dtype() == DType::kInt64);
  return std::vector<int64_t>(t.i64(), t.i64() + t.numel());
}
/// float32 values as text, so that NaN compares equal to NaN.
std::vector<std::string> floats_of(const Tensor& t) {
  REQUIRE(t.dtype() == DType::kFloat32);
  std::vector<std::string> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(attr_to_string(AttrValue{double{t.f32()[i]}}));
  return out;
}
std::vector<std::string> texts(const std::vector<double>& values) {
  std::vector<std::string> out;
  for (double v : values) out.push_back(attr_to_string(AttrValue{double{static_cast<float>(v)}}));
  return out;
}

Tensor floats(Shape shape, const std::vector<double>& values) {
  return Tensor::from_floats(std::move(shape), std::vector<float>(values.begin(), values.end()));
}
Tensor bools(Shape shape, const std::vector<bool>& values) {
  return Tensor::from_bools(std::move(shape), values);
}

}  // namespace

TEST_CASE("comparisons follow IEEE on NaN and infinities, as torch does", "[eval][logic]") {
  Tensor a = floats({6}, {1, kNan, -kInf, 2, kInf, 0.0});
  Tensor b = floats({6}, {1, kNan, -kInf, 3, 1, -0.0});
  // torch.<op>(a, b) and torch.<op>(a, 1)
  const std::map<std::string, std::pair<std::vector<int>, std::vector<int>>> want = {
      {"eq", {{1, 0, 1, 0, 0, 1}, {1, 0, 0, 0, 0, 0}}},
      {"ne", {{0, 1, 0, 1, 1, 0}, {0, 1, 1, 1, 1, 1}}},
      {"lt", {{0, 0, 0, 1, 0, 0}, {0, 0, 1, 0, 0, 1}}},
      {"le", {{1, 0, 1, 1, 0, 1}, {1, 0, 1, 0, 0, 1}}},
      {"gt", {{0, 0, 0, 0, 1, 0}, {0, 0, 0, 1, 1, 0}}},
      {"ge", {{1, 0, 1, 0, 1, 1}, {1, 0, 0, 1, 1, 0}}},
  };
  for (const auto& [op, expected] : want) {
    INFO(op);
    CHECK(bools_of(run(op, {a, b})) == expected.first);
    CHECK(bools_of(run(op, {a, integer(1)})) == expected.second);
  }
}

TEST_CASE("comparisons compute in torch's promoted dtype, with broadcasting", "[eval][logic]") {
  // torch.eq(torch.tensor([16777217, 2]), 16777216.0): int64 against a float compares as float32
  CHECK(bools_of(run("eq", {Tensor::from_ints({2}, {16777217, 2}), real(16777216.0)})) ==
        std::vector<int>{1, 0});
  // torch.eq(torch.tensor([2**62 + 1]), torch.tensor([2**62])): int64 compares exactly
  CHECK(bools_of(run("eq", {Tensor::from_ints({1}, {(int64_t{1} << 62) + 1}),
                            Tensor::from_ints({1}, {int64_t{1} << 62})})) == std::vector<int>{0});
  // torch.lt(torch.tensor([True, False]), 0.5)
  CHECK(bools_of(run("lt", {bools({2}, {true, false}), real(0.5)})) == std::vector<int>{0, 1});
  // torch.gt(torch.tensor([[0.5], [2.5]]), torch.tensor([0, 1, 2, 3]))
  Tensor g = run("gt", {floats({2, 1}, {0.5, 2.5}), Tensor::from_ints({4}, {0, 1, 2, 3})});
  CHECK(g.shape() == Shape{2, 4});
  CHECK(bools_of(g) == std::vector<int>{1, 0, 0, 0, 1, 1, 1, 0});
}

TEST_CASE("logical ops treat nonzero and NaN as true", "[eval][logic]") {
  // torch.logical_not(torch.tensor([0., -0.0, nan, 2.]))
  CHECK(bools_of(run("logical_not", {floats({4}, {0, -0.0, kNan, 2})})) ==
        std::vector<int>{1, 1, 0, 0});
  // torch.logical_and(torch.tensor([0., 1., nan]), torch.tensor([[5], [0]]))
  CHECK(bools_of(run("logical_and", {floats({3}, {0, 1, kNan}), Tensor::from_ints({2, 1}, {5, 0})})) ==
        std::vector<int>{0, 1, 1, 0, 0, 0});
  // torch.logical_or(torch.tensor([0., 1., nan]), torch.tensor([False, False, False]))
  CHECK(bools_of(run("logical_or", {floats({3}, {0, 1, kNan}), bools({3}, {false, false, false})})) ==
        std::vector<int>{0, 1, 1});
}

TEST_CASE("masked_fill writes -inf, NaN or a converted value where the mask holds",
          "[eval][logic]") {
  // torch.masked_fill(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([False, True]), -inf)
  CHECK(floats_of(run("masked_fill", {floats({2, 2}, {1, 2, 3, 4}), bools({2}, {false, true})},
                      {{"value", -kInf}})) == texts({1, -kInf, 3, -kInf}));
  // torch.masked_fill(torch.tensor([1., 2.]), torch.tensor([True, False]), nan)
  CHECK(floats_of(run("masked_fill", {floats({2}, {1, 2}), bools({2}, {true, false})},
                      {{"value", kNan}})) == texts({kNan, 2}));
  // torch.masked_fill(torch.tensor([5, 6, 7]),
  //                   torch.tensor([[True, False, True], [False, False, True]]), -2.7)
  Tensor i = run("masked_fill", {Tensor::from_ints({3}, {5, 6, 7}),
                                 bools({2, 3}, {true, false, true, false, false, true})},
                 {{"value", -2.7}});
  CHECK(i.shape() == Shape{2, 3});
  CHECK(ints_of(i) == std::vector<int64_t>{-2, 6, -2, 5, 6, -2});
  // torch.masked_fill(torch.tensor([False, True]), torch.tensor([True, False]), 2)
  CHECK(bools_of(run("masked_fill", {bools({2}, {false, true}), bools({2}, {true, false})},
                     {{"value", int64_t{2}}})) == std::vector<int>{1, 1});
  // an int64 fill beyond 2^53 stays exact
  CHECK(ints_of(run("masked_fill", {Tensor::from_ints({1}, {0}), bools({1}, {true})},
                    {{"value", (int64_t{1} << 62) + 1}})) ==
        std::vector<int64_t>{(int64_t{1} << 62) + 1});
}

TEST_CASE("where selects broadcast tensors or scalars in the promoted dtype", "[eval][logic]") {
  // torch.where(torch.tensor([True, False, True]), torch.tensor([1, 2, 3]), 0.5)
  CHECK(floats_of(run("where", {bools({3}, {true, false, true}), Tensor::from_ints({3}, {1, 2, 3}),
                                real(0.5)})) == texts({1, 0.5, 3}));
  // torch.where(torch.tensor([[True], [False]]), 1, torch.tensor([7, 8, 9]))
  Tensor w = run("where", {bools({2, 1}, {true, false}), integer(1),
                           Tensor::from_ints({3}, {7, 8, 9})});
  CHECK(w.shape() == Shape{2, 3});
  CHECK(ints_of(w) == std::vector<int64_t>{1, 1, 1, 7, 8, 9});
}

TEST_CASE("full_like and to convert values as torch does", "[eval][logic]") {
  // torch.full_like(torch.zeros(2, dtype=torch.long), 2.5)
  CHECK(ints_of(run("full_like", {Tensor::from_ints({2}, {0, 0})}, {{"fill_value", 2.5}})) ==
        std::vector<int64_t>{2, 2});
  // torch.full_like(torch.zeros(2), 1, dtype=torch.bool)
  CHECK(bools_of(run("full_like", {floats({2}, {0, 0})},
                     {{"fill_value", int64_t{1}}, {"dtype", std::string("bool")}})) ==
        std::vector<int>{1, 1});
  CHECK(floats_of(run("full_like", {floats({2}, {0, 0})}, {{"fill_value", -kInf}})) ==
        texts({-kInf, -kInf}));
  Tensor t = floats({6}, {2.7, -2.7, kNan, kInf, -0.0, 1e20});
  // torch.tensor([2.7, -2.7, nan, inf, -0.0, 1e20]).to(torch.long): x86 gives INT64_MIN for
  // NaN and values beyond int64
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  CHECK(ints_of(run("to", {t}, {{"dtype", std::string("int64")}})) ==
        std::vector<int64_t>{2, -2, kMin, kMin, 0, kMin});
  // ….to(torch.bool)
  CHECK(bools_of(run("to", {t}, {{"dtype", std::string("bool")}})) ==
        std::vector<int>{1, 1, 1, 1, 0, 1});
  // torch.tensor([16777217, -3]).to(torch.float32)
  CHECK(floats_of(run("to", {Tensor::from_ints({2}, {16777217, -3})},
                      {{"dtype", std::string("float32")}})) == texts({16777216, -3}));
  // torch.tensor([3, 0, -1]).to(torch.bool)
  CHECK(bools_of(run("to", {Tensor::from_ints({3}, {3, 0, -1})}, {{"dtype", std::string("bool")}})) ==
        std::vector<int>{1, 0, 1});
}

TEST_CASE("cumsum accumulates float32 in double and integers in int64", "[eval][logic]") {
  Tensor c = floats({2, 3}, {0.1, 0.2, 0.3, 1e8, 1, -1e8});
  // torch.cumsum(c, 1): 1e8 + 1 - 1e8 is 1 because torch accumulates in double
  CHECK(floats_of(run("cumsum", {c}, {{"dim", int64_t{1}}})) ==
        texts({0.10000000149011612, 0.30000001192092896, 0.6000000238418579, 1e8, 1e8, 1}));
  // torch.cumsum(c, 0)
  CHECK(floats_of(run("cumsum", {c}, {{"dim", int64_t{0}}})) ==
        texts({0.1, 0.2, 0.3, 1e8, 1.2000000476837158, -1e8}));
  // torch.cumsum(torch.tensor([1., nan, 2.]), 0)
  CHECK(floats_of(run("cumsum", {floats({3}, {1, kNan, 2})}, {{"dim", int64_t{0}}})) ==
        texts({1, kNan, kNan}));
  // torch.cumsum(torch.tensor([[True, False, True], [True, True, False]]), 1)
  CHECK(ints_of(run("cumsum", {bools({2, 3}, {true, false, true, true, true, false})},
                    {{"dim", int64_t{-1}}})) == std::vector<int64_t>{1, 1, 2, 1, 2, 2});
  // torch.cumsum(torch.tensor([2**62, 2**62, 1]), 0): int64 wraps
  const int64_t k62 = int64_t{1} << 62;
  CHECK(ints_of(run("cumsum", {Tensor::from_ints({3}, {k62, k62, 1})}, {{"dim", int64_t{0}}})) ==
        std::vector<int64_t>{k62, std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::min() + 1});
}

TEST_CASE("argmax and argmin give the first extreme, a NaN beyond every number",
          "[eval][logic]") {
  Tensor m = floats({3, 3}, {3, 1, 3, kNan, 5, kNan, -kInf, -kInf, 0});
  // torch.argmax(m), torch.argmin(m)
  CHECK(ints_of(run("argmax", {m})) == std::vector<int64_t>{3});
  CHECK(ints_of(run("argmin", {m})) == std::vector<int64_t>{3});
  // torch.argmax(m, 1), torch.argmin(m, 1)
  CHECK(ints_of(run("argmax", {m}, {{"dim", int64_t{1}}})) == std::vector<int64_t>{0, 0, 2});
  CHECK(ints_of(run("argmin", {m}, {{"dim", int64_t{1}}})) == std::vector<int64_t>{1, 0, 0});
  // torch.argmax(m, 0, True), torch.argmin(m, 0)
  Tensor k = run("argmax", {m}, {{"dim", int64_t{0}}, {"keepdim", true}});
  CHECK(k.shape() == Shape{1, 3});
  CHECK(ints_of(k) == std::vector<int64_t>{1, 1, 1});
  CHECK(ints_of(run("argmin", {m}, {{"dim", int64_t{0}}})) == std::vector<int64_t>{1, 2, 1});
  // torch.argmax(torch.tensor([[4, 9, 9], [1, 0, 0]]), 1), torch.argmin(…)
  Tensor i = Tensor::from_ints({2, 3}, {4, 9, 9, 1, 0, 0});
  CHECK(ints_of(run("argmax", {i}, {{"dim", int64_t{1}}})) == std::vector<int64_t>{1, 0});
  CHECK(ints_of(run("argmin", {i})) == std::vector<int64_t>{4});
}

TEST_CASE("amin propagates NaN and keeps -inf", "[eval][logic]") {
  Tensor m = floats({3, 3}, {3, 1, 3, kNan, 5, kNan, -kInf, -kInf, 0});
  // torch.amin(m, 1), torch.amin(m, 0)
  CHECK(floats_of(run("amin", {m}, {{"dim", std::vector<int64_t>{1}}})) == texts({1, kNan, -kInf}));
  CHECK(floats_of(run("amin", {m}, {{"dim", std::vector<int64_t>{0}}})) ==
        texts({kNan, -kInf, kNan}));
  // torch.amin(torch.tensor([[3., -0., 0.], [1., 2., -inf]]), [0, 1])
  CHECK(floats_of(run("amin", {floats({2, 3}, {3, -0.0, 0, 1, 2, -kInf})})) == texts({-kInf}));
}
