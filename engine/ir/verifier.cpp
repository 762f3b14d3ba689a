// Graph lint: every invariant the mutation API promises, checked from scratch.
#include "engine/ir/verifier.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "engine/ops/shape_infer.h"

namespace graft {
namespace {

class Verifier {
 public:
  Verifier(const Graph& graph, DiagnosticEngine& diags, const std::string& file)
      : graph_(graph), diags_(diags), file_(file) {}

  bool run() {
    int errors_before = diags_.error_count();
    std::unordered_set<const Node*> defined;
    std::unordered_map<const Node*, std::vector<const Node*>> expected_users;
    size_t count = 0;
    const Node* prev = nullptr;
    for (const Node* node : graph_.nodes()) {
      ++count;
      if (node->is_dead()) fail(node, "dead node is still linked");
      if (prev != nullptr && !Graph::is_before(prev, node)) fail(node, "order keys out of sequence");
      if (node->name().empty()) {
        fail(node, "has no name (Graph::rename was never called for it)");
      } else if (graph_.find(node->name()) != node) {
        fail(node, "name is not indexed to this node");
      }
      if (node->kind() == NodeKind::kOutput && node != graph_.last()) {
        fail(node, "output node is not the last node");
      }
      for (size_t i = 0; i < node->inputs().size(); ++i) {
        const Input& in = node->input(i);
        if (!in.is_node()) continue;
        if (!defined.count(in.node)) {
          fail(node, "input " + std::to_string(i) + " '" + in.node->name() +
                         "' is not defined before its use");
        }
        expected_users[in.node].push_back(node);
      }
      check_kind(node);
      defined.insert(node);
      prev = node;
    }
    if (count != graph_.size()) fail(nullptr, "live node count does not match the list");
    if (graph_.output() == nullptr) fail(nullptr, "graph has no output node");
    for (const Node* node : graph_.nodes()) {
      std::span<Node* const> users = node->users();
      std::vector<const Node*> actual(users.begin(), users.end());
      std::vector<const Node*>& expected = expected_users[node];
      std::sort(actual.begin(), actual.end());
      std::sort(expected.begin(), expected.end());
      if (actual != expected) fail(node, "user list does not match the uses of this node");
    }
    return diags_.error_count() == errors_before;
  }

 private:
  void check_kind(const Node* node) {
    switch (node->kind()) {
      case NodeKind::kPlaceholder:
        if (!node->inputs().empty()) fail(node, "placeholder has inputs");
        break;
      case NodeKind::kGetAttr:
        if (!graph_.constants().contains(node->target())) {
          fail(node, "get_attr target '" + node->target() + "' is not a known constant");
        }
        break;
      case NodeKind::kOutput:
        if (node != graph_.output()) fail(node, "second output node");
        break;
      case NodeKind::kCallFunction:
        check_call(node);
        break;
    }
  }

  void check_call(const Node* node) {
    const OpSchema* schema = node->schema();
    if (schema == nullptr) return fail(node, "call_function without an op schema");
    if (node->attrs().size() != schema->attrs.size()) {
      fail(node, "has " + std::to_string(node->attrs().size()) + " attributes, schema has " +
                     std::to_string(schema->attrs.size()));
    }
    size_t fixed = schema->has_variadic() ? schema->operands.size() - 1 : schema->operands.size();
    if (node->inputs().size() < fixed ||
        (!schema->has_variadic() && node->inputs().size() != fixed)) {
      fail(node, "has " + std::to_string(node->inputs().size()) + " inputs, schema has " +
                     std::to_string(schema->operands.size()) + " operands");
      return;
    }
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      const OperandSpec& spec = schema->operands[std::min(i, schema->operands.size() - 1)];
      const Input& in = node->input(i);
      if (in.is_none() && !spec.optional) fail(node, "required operand '" + spec.name + "' is None");
      if (in.is_scalar() && !spec.allow_scalar) fail(node, "operand '" + spec.name + "' is a scalar");
    }
    if (node->type()) {
      std::string error;
      std::optional<TensorType> inferred = infer_node_type(*node, &error);
      if (inferred && !(*inferred == *node->type())) {
        fail(node, "recorded type " + type_to_string(*node->type()) + " differs from inferred " +
                       type_to_string(*inferred));
      }
    }
  }

  void fail(const Node* node, const std::string& message) {
    std::string who;
    if (node != nullptr) {
      who = node->name().empty()
                ? std::string("an unnamed ") + node_kind_name(node->kind()) + " node: "
                : "node '" + node->name() + "': ";
    }
    diags_.error(DiagLocation::in_file(file_), who + message);
  }

  const Graph& graph_;
  DiagnosticEngine& diags_;
  const std::string& file_;
};

}  // namespace

bool verify_graph(const Graph& graph, DiagnosticEngine& diags, const std::string& file) {
  return Verifier(graph, diags, file).run();
}

}  // namespace graft
