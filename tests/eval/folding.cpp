// Test helper: folding one op on constants (tests/eval/folding.h).
#include "tests/eval/folding.h"

#include <catch2/catch.hpp>

#include <cstring>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "eval/constant_folder.h"

namespace graft::testing {

ConstantTensor int_constant(Shape shape, const std::vector<int64_t>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return ConstantTensor::owned(DType::kInt64, std::move(shape), std::move(bytes));
}

ConstantTensor bool_constant(Shape shape, const std::vector<int>& values) {
  std::vector<std::byte> bytes;
  for (int v : values) bytes.push_back(static_cast<std::byte>(v));
  return ConstantTensor::owned(DType::kBool, std::move(shape), std::move(bytes));
}

ConstantTensor float_constant(Shape shape, const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return ConstantTensor::owned(DType::kFloat32, std::move(shape), std::move(bytes));
}

Shape Folded::shape() const {
  INFO(error);
  REQUIRE(value);
  return value->shape();
}

std::vector<int64_t> Folded::i64() const {
  INFO(error);
  REQUIRE(value);
  REQUIRE(value->dtype() == DType::kInt64);
  std::vector<int64_t> out(static_cast<size_t>(value->numel()));
  if (!out.empty()) std::memcpy(out.data(), value->data, value->nbytes);
  return out;
}

std::vector<int> Folded::b8() const {
  INFO(error);
  REQUIRE(value);
  REQUIRE(value->dtype() == DType::kBool);
  std::vector<int> out;
  for (int64_t i = 0; i < value->numel(); ++i) out.push_back(static_cast<int>(value->data[i]));
  return out;
}

std::vector<float> Folded::f32() const {
  INFO(error);
  REQUIRE(value);
  REQUIRE(value->dtype() == DType::kFloat32);
  std::vector<float> out(static_cast<size_t>(value->numel()));
  if (!out.empty()) std::memcpy(out.data(), value->data, value->nbytes);
  return out;
}

Folded fold(const std::string& op, const std::vector<ConstantTensor>& operands,
            const std::map<std::string, AttrValue>& attrs) {
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
    INFO(op << " has no attribute " << name);
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

}  // namespace graft::testing
