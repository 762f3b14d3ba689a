#include "engine/rewrite/type_memo.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"

using namespace graft;

namespace {

const OpSchema& op(std::string_view name) {
  const OpSchema* schema = OpRegistry::get().find(name);
  REQUIRE(schema != nullptr);
  return *schema;
}

TensorType f32(Shape shape) { return TensorType{DType::kFloat32, std::move(shape)}; }

/// Infers `node`'s type through `memo` and checks it against a fresh inference.
TensorType infer(TypeMemo& memo, const Node& node) {
  const TensorType* type = nullptr;
  std::string error;
  REQUIRE(memo.infer(node, &type, &error));
  REQUIRE(type);
  std::optional<TensorType> fresh = infer_node_type(node, &error);
  REQUIRE(fresh);
  CHECK(*type == *fresh);
  return *type;
}

}  // namespace

TEST_CASE("a type memo answers for equal inputs and re-infers for any difference",
          "[engine][type_memo]") {
  Graph g;
  Node* a = g.add_placeholder("a", f32({8, 4}));
  Node* b = g.add_placeholder("b", f32({4}));
  Node* c = g.add_placeholder("c", f32({3, 1, 4}));
  Node* i = g.add_placeholder("i", TensorType{DType::kInt64, {4}});
  const OpSchema& add = op("add");
  TypeMemo memo;

  auto make = [&](std::vector<Input> inputs) {
    return Graph::make_detached_call(add, std::move(inputs), Graph::default_attrs(add));
  };
  CHECK(infer(memo, *make({Input::of(a), Input::of(b)})) == f32({8, 4}));
  CHECK(memo.hits() == 0);
  // Other nodes of the same types: answered from the memo.
  Node* a2 = g.add_placeholder("a2", f32({8, 4}));
  CHECK(infer(memo, *make({Input::of(a2), Input::of(b)})) == f32({8, 4}));
  CHECK(memo.hits() == 1);
  // Another operand type: broadcast to a new shape.
  CHECK(infer(memo, *make({Input::of(a), Input::of(c)})) == f32({3, 8, 4}));
  // Int tensor and int scalar, then a float scalar: the promotion differs.
  CHECK(infer(memo, *make({Input::of(i), Input::of(Scalar{2, true})})) ==
        TensorType{DType::kInt64, {4}});
  CHECK(infer(memo, *make({Input::of(i), Input::of(Scalar{2.5, false})})) == f32({4}));
  // A tensor where a scalar was.
  CHECK(infer(memo, *make({Input::of(i), Input::of(b)})) == f32({4}));
  CHECK(memo.hits() == 1);
}

TEST_CASE("a type memo compares attributes", "[engine][type_memo]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({2, 3, 4}));
  const OpSchema& sum = op("sum");
  TypeMemo memo;
  auto sum_over = [&](std::vector<int64_t> dims, bool keepdim) {
    std::vector<AttrValue> attrs = Graph::default_attrs(sum);
    attrs[static_cast<size_t>(sum.attr_index("dim"))] = std::move(dims);
    attrs[static_cast<size_t>(sum.attr_index("keepdim"))] = keepdim;
    return Graph::make_detached_call(sum, {Input::of(x)}, std::move(attrs));
  };
  CHECK(infer(memo, *sum_over({1}, false)) == f32({2, 4}));
  CHECK(infer(memo, *sum_over({1}, true)) == f32({2, 1, 4}));
  CHECK(infer(memo, *sum_over({0, 2}, true)) == f32({1, 3, 1}));
  CHECK(infer(memo, *sum_over({0, 2}, true)) == f32({1, 3, 1}));
  CHECK(memo.hits() == 1);
}

TEST_CASE("a type memo forgets a failed inference", "[engine][type_memo]") {
  Graph g;
  Node* a = g.add_placeholder("a", f32({8, 4}));
  Node* b = g.add_placeholder("b", f32({5}));
  Node* c = g.add_placeholder("c", f32({4}));
  const OpSchema& mul = op("mul");
  TypeMemo memo;
  auto make = [&](Node* y) {
    return Graph::make_detached_call(mul, {Input::of(a), Input::of(y)}, Graph::default_attrs(mul));
  };
  CHECK(infer(memo, *make(c)) == f32({8, 4}));
  const TensorType* type = nullptr;
  std::string error;
  CHECK_FALSE(memo.infer(*make(b), &type, &error));
  CHECK_THAT(error, Catch::Contains("cannot be broadcast"));
  CHECK(infer(memo, *make(c)) == f32({8, 4}));
}

TEST_CASE("a type memo hit needs literals and attributes identical bit for bit",
          "[engine][type_memo]") {
  // Prepared folds are reused on a hit, and x * -0.0 is not x * 0.0.
  Graph g;
  Node* x = g.add_placeholder("x", f32({4}));
  const OpSchema& mul = op("mul");
  const OpSchema& leaky = op("leaky_relu");
  TypeMemo memo;
  auto times = [&](double v) {
    return Graph::make_detached_call(mul, {Input::of(x), Input::of(Scalar{v, false})},
                                     Graph::default_attrs(mul));
  };
  auto leaky_with = [&](AttrValue slope) {
    std::vector<AttrValue> attrs = Graph::default_attrs(leaky);
    attrs[static_cast<size_t>(leaky.attr_index("negative_slope"))] = std::move(slope);
    return Graph::make_detached_call(leaky, {Input::of(x)}, std::move(attrs));
  };
  infer(memo, *times(0.0));
  CHECK_FALSE(memo.same_as_last(mul, times(-0.0)->inputs(), Graph::default_attrs(mul)));
  CHECK(memo.same_as_last(mul, times(0.0)->inputs(), Graph::default_attrs(mul)));
  infer(memo, *times(NAN));  // the same NaN bits: a hit, unlike NaN == NaN
  CHECK(memo.same_as_last(mul, times(NAN)->inputs(), Graph::default_attrs(mul)));
  infer(memo, *leaky_with(0.0));
  CHECK_FALSE(memo.same_as_last(leaky, leaky_with(-0.0)->inputs(), leaky_with(-0.0)->attrs()));
  CHECK(memo.same_as_last(leaky, leaky_with(0.0)->inputs(), leaky_with(0.0)->attrs()));
}

TEST_CASE("a type memo over interned attribute lists compares them by address",
          "[engine][type_memo]") {
  Graph g;
  Node* x = g.add_placeholder("x", f32({2, 3, 4}));
  const OpSchema& sum = op("sum");
  const OpSchema& leaky = op("leaky_relu");
  TypeMemo memo(/*attrs_interned=*/true);
  auto sum_over = [&](std::vector<int64_t> dims, bool keepdim) {
    std::vector<AttrValue> attrs = Graph::default_attrs(sum);
    attrs[static_cast<size_t>(sum.attr_index("dim"))] = std::move(dims);
    attrs[static_cast<size_t>(sum.attr_index("keepdim"))] = keepdim;
    return g.add_interned_call(sum, {Input::of(x)}, g.intern_attrs(attrs));
  };
  CHECK(infer(memo, *sum_over({1}, false)) == f32({2, 4}));
  CHECK(infer(memo, *sum_over({1}, true)) == f32({2, 1, 4}));
  // An identical list is the same list: a hit, without comparing values.
  CHECK(infer(memo, *sum_over({1}, true)) == f32({2, 1, 4}));
  CHECK(memo.hits() == 1);
  CHECK(infer(memo, *sum_over({0, 2}, true)) == f32({1, 3, 1}));
  CHECK(memo.hits() == 1);
  // Bit for bit still: -0.0 and 0.0 are two lists.
  auto leaky_with = [&](double slope) {
    std::vector<AttrValue> attrs = Graph::default_attrs(leaky);
    attrs[static_cast<size_t>(leaky.attr_index("negative_slope"))] = slope;
    return g.add_interned_call(leaky, {Input::of(x)}, g.intern_attrs(attrs));
  };
  infer(memo, *leaky_with(0.0));
  CHECK_FALSE(memo.same_as_last(leaky, leaky_with(-0.0)->inputs(), leaky_with(-0.0)->attrs()));
  CHECK(memo.same_as_last(leaky, leaky_with(0.0)->inputs(), leaky_with(0.0)->attrs()));
}
