// fold_constant_nodes: ops on constants only become constants holding their values; ops with a
// computed input, results over the size bound and ops the reference refuses stay.
#include <catch2/catch.hpp>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "eval/constant_nodes.h"
#include "tests/eval/folding.h"

using namespace graft;
using namespace graft::testing;

namespace {

Node* call(Graph& g, const std::string& op, std::vector<Input> inputs,
           const std::map<std::string, AttrValue>& attrs = {}) {
  const OpSchema* schema = OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  inputs.resize(std::max(inputs.size(), schema->operands.size()));
  std::vector<AttrValue> values = Graph::default_attrs(*schema);
  for (const auto& [name, value] : attrs) values[static_cast<size_t>(schema->attr_index(name))] = value;
  Node* n = g.add_call(*schema, inputs, std::move(values), op);
  std::string error;
  std::optional<TensorType> type = infer_node_type(*n, &error);
  INFO(error);
  REQUIRE(type);
  n->meta().set_type(std::move(type));
  return n;
}

Node* constant(Graph& g, const std::string& name, ConstantTensor value) {
  g.constants().set(name, std::move(value));
  return g.add_get_attr(name, name);
}

}  // namespace

TEST_CASE("ops on constants fold into one constant of their value", "[eval][constant_nodes]") {
  Graph g;
  Node* x = g.add_placeholder("x", TensorType{DType::kFloat32, {2, 2}});
  // mask = (buffer[:2, :2] == 0): a slice and a comparison of a constant, as GPT's causal mask.
  Node* buffer = constant(g, "buffer", float_constant({3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1}));
  Node* rows = call(g, "slice", {Input::of(buffer)}, {{"dim", int64_t{0}}, {"end", int64_t{2}}});
  Node* square = call(g, "slice", {Input::of(rows)}, {{"dim", int64_t{1}}, {"end", int64_t{2}}});
  Node* hidden = call(g, "eq", {Input::of(square), Input::of(Scalar{0.0, false})});
  Node* filled = call(g, "masked_fill", {Input::of(x), Input::of(hidden)}, {{"value", -1.0}});
  g.set_output({Input::of(filled)});

  CHECK(eval::fold_constant_nodes(g, 1 << 20) == 3);
  // masked_fill reads a computed input: it stays, now reading one constant.
  REQUIRE(filled->inputs()[1].is_node());
  const Node* mask = filled->inputs()[1].node;
  REQUIRE(mask->is(NodeKind::kGetAttr));
  const ConstantTensor* value = g.constant(*mask);
  REQUIRE(value != nullptr);
  CHECK(value->dtype() == DType::kBool);
  CHECK(value->shape() == Shape{2, 2});
  const auto* flags = reinterpret_cast<const uint8_t*>(value->data);
  CHECK(std::vector<int>(flags, flags + 4) == std::vector<int>{0, 1, 0, 0});
  for (const Node* n : g.nodes()) CHECK(n->target() != "slice");
  CHECK(mask->name() == "eq");  // the constant keeps the op's name (an output keeps its name)
}

TEST_CASE("folding keeps results over the bound and ops the reference refuses",
          "[eval][constant_nodes]") {
  Graph g;
  Node* c = constant(g, "c", float_constant({4}, {1, 2, 3, 4}));
  Node* big = call(g, "expand", {Input::of(c)}, {{"size", std::vector<int64_t>{64, 4}}});
  Node* dropped = call(g, "dropout", {Input::of(c)}, {{"p", 0.5}, {"training", true}});
  g.set_output({Input::of(big), Input::of(dropped)});
  CHECK(eval::fold_constant_nodes(g, 64 * 4 * 4 - 1) == 0);  // expand's 1 KiB is over the bound
  CHECK(big->target() == "expand");
  CHECK(dropped->target() == "dropout");  // random: the runtime reports it, as before
  CHECK(eval::fold_constant_nodes(g, 1 << 20) == 1);
}
