#include "eval/constant_nodes.h"

#include <algorithm>
#include <string>
#include <vector>

#include "eval/constant_folder.h"

namespace graft::eval {
namespace {

/// The constants `node` reads, one per input (nullptr for a scalar or None), or false when
/// one of its inputs is computed.
bool constant_operands(const Graph& graph, const Node& node,
                       std::vector<const ConstantTensor*>* operands) {
  for (const Input& in : node.inputs()) {
    if (!in.is_node()) {
      operands->push_back(nullptr);
      continue;
    }
    const ConstantTensor* c = in.node->is(NodeKind::kGetAttr) ? graph.constant(*in.node) : nullptr;
    if (c == nullptr) return false;
    operands->push_back(c);
  }
  return true;
}

size_t result_bytes(const TensorType& type) {
  size_t n = dtype_size(type.dtype);
  for (Dim d : type.shape) n *= static_cast<size_t>(d);
  return n;
}

}  // namespace

size_t fold_constant_nodes(Graph& graph, size_t max_bytes) {
  const ConstantFolder folder = reference_constant_folder();
  std::vector<Node*> order;  // the walk erases nodes: take the order first
  for (Node* node : graph.nodes()) order.push_back(node);
  size_t folded = 0;
  for (Node* node : order) {
    if (!node->is(NodeKind::kCallFunction) || node->schema() == nullptr || !node->type() ||
        !is_concrete(node->type()->shape) || result_bytes(*node->type()) > max_bytes) {
      continue;
    }
    std::vector<const ConstantTensor*> operands;
    if (!constant_operands(graph, *node, &operands)) continue;
    std::string error;
    std::optional<ConstantTensor> value = folder.fold(*node, operands, &error);
    if (!value) continue;
    const std::string target = graph.constants().unique_name(node->name() + ".folded");
    graph.constants().set(target, std::move(*value));
    std::string name = target;
    std::replace(name.begin(), name.end(), '.', '_');
    Node* insert_point = graph.insert_point();
    graph.set_insert_point(node);
    Node* constant = graph.add_get_attr(name, target);
    graph.set_insert_point(insert_point);
    graph.replace_all_uses_with(node, constant);
    const std::string node_name = node->name();
    graph.erase(node);
    // The constant takes the op's name: an output keeps its name, a diagnostic its node.
    graph.rename(constant, node_name);
    ++folded;
  }
  graph.erase_dead_nodes();
  return folded;
}

}  // namespace graft::eval
