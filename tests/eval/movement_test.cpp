// The data-movement reference kernels on int64 and bool as well as float32, through the
// constant folder (which is the reference): results are exact, element for element, and equal
// to torch 1.13's (each expected value names the torch call that gives it).
#include <catch2/catch.hpp>

#include <cstring>
#include <map>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "eval/constant_folder.h"
#include "eval/reference.h"

using namespace graft;

namespace {

ConstantTensor ints(Shape shape, const std::vector<int64_t>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return ConstantTensor::owned(DType::kInt64, std::move(shape), std::move(bytes));
}

ConstantTensor bools(Shape shape, const std::vector<int>& values) {
  std::vector<std::byte> bytes;
  for (int v : values) bytes.push_back(static_cast<std::byte>(v));
  return ConstantTensor::owned(DType::kBool, std::move(shape), std::move(bytes));
}

/// The folded result of `op` on constant operands, or the error (shape inference's or the
/// folder's) as a string.
struct Folded {
  std::optional<ConstantTensor> value;
  std::string error;

  std::vector<int64_t> i64() const {
    REQUIRE(value);
    REQUIRE(value->dtype() == DType::kInt64);
    std::vector<int64_t> out(static_cast<size_t>(value->numel()));
    if (!out.empty()) std::memcpy(out.data(), value->data, value->nbytes);
    return out;
  }
  std::vector<int> b8() const {
    REQUIRE(value);
    REQUIRE(value->dtype() == DType::kBool);
    std::vector<int> out;
    for (int64_t i = 0; i < value->numel(); ++i) out.push_back(static_cast<int>(value->data[i]));
    return out;
  }
  Shape shape() const {
    REQUIRE(value);
    return value->shape();
  }
};

Folded fold(const std::string& op, const std::vector<ConstantTensor>& operands,
            const std::map<std::string, AttrValue>& attrs = {}) {
  const OpSchema* schema = OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  Graph graph;
  std::vector<Input> inputs;
  std::vector<const ConstantTensor*> pointers;
  for (size_t i = 0; i < operands.size(); ++i) {
    Node* n = graph.add_get_attr("c" + std::to_string(i), "c" + std::to_string(i));
    n->meta().set_type(operands[i].type());
    inputs.push_back(Input::of(n));
    pointers.push_back(&operands[i]);
  }
  std::vector<AttrValue> values = Graph::default_attrs(*schema);
  for (const auto& [name, value] : attrs) {
    int index = schema->attr_index(name);
    REQUIRE(index >= 0);
    values[static_cast<size_t>(index)] = value;
  }
  auto node = Graph::make_detached_call(*schema, std::move(inputs), std::move(values));
  Folded result;
  std::optional<TensorType> type = infer_node_type(*node, &result.error);
  if (!type) return result;
  node->meta().set_type(*type);
  result.value = eval::reference_constant_folder().fold(*node, pointers, &result.error);
  return result;
}

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("int64 constants fold exactly through permute, transpose, reshape and cat",
          "[eval][movement]") {
  const int64_t big = (int64_t{1} << 53) + 1;  // not a float32 nor a float64 value
  ConstantTensor x = ints({2, 3}, {0, 1, 2, 3, 4, big});
  // torch.tensor([[0, 1, 2], [3, 4, 2**53 + 1]]).t() -> [[0, 3], [1, 4], [2, 2**53 + 1]]
  CHECK(fold("transpose", {x}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}).i64() ==
        Ints{0, 3, 1, 4, 2, big});
  CHECK(fold("permute", {x}, {{"dims", Ints{1, 0}}}).i64() == Ints{0, 3, 1, 4, 2, big});
  CHECK(fold("reshape", {x}, {{"shape", Ints{3, 2}}}).i64() == Ints{0, 1, 2, 3, 4, big});
  // torch.cat([x, x[:, :1]], 1)
  Folded c = fold("cat", {x, ints({2, 1}, {-7, -8})}, {{"dim", int64_t{1}}});
  CHECK(c.shape() == Shape{2, 4});
  CHECK(c.i64() == Ints{0, 1, 2, -7, 3, 4, big, -8});
}

TEST_CASE("bool constants fold through views, permutes and cats", "[eval][movement]") {
  ConstantTensor m = bools({2, 2}, {1, 0, 0, 1});
  CHECK(fold("transpose", {m}, {{"dim0", int64_t{1}}, {"dim1", int64_t{0}}}).b8() ==
        std::vector<int>{1, 0, 0, 1});
  CHECK(fold("reshape", {m}, {{"shape", Ints{4}}}).b8() == std::vector<int>{1, 0, 0, 1});
  CHECK(fold("cat", {m, bools({2, 1}, {1, 1})}, {{"dim", int64_t{1}}}).b8() ==
        std::vector<int>{1, 0, 1, 0, 1, 1});
}

TEST_CASE("a float32 formula on int64 constants is left unfolded with a reason",
          "[eval][movement]") {
  Folded r = fold("relu", {ints({2}, {-1, 2})});
  CHECK_FALSE(r.value);
  CHECK(r.error == "the reference kernel of 'relu' computes float32 only");
}
