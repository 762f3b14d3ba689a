// Graph lint: every invariant the mutation API promises, checked from scratch.
#include "engine/ir/verifier.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/ops/shape_infer.h"

namespace graft {
namespace {

/// How many nodes ahead the verifier fetches the name index slot of the node it will check.
constexpr size_t kNamesAhead = 8;

class Verifier {
 public:
  Verifier(const Graph& graph, DiagnosticEngine& diags, const std::string& file)
      : graph_(graph), diags_(diags), file_(file) {}

  bool run() {
    int errors_before = diags_.error_count();
    // By node id rather than hashed by pointer: a million-node graph is verified after loading
    // and after rewriting, and hash sets of that size cost more than the checks themselves.
    std::vector<char> defined(graph_.id_bound(), 0);
    std::vector<uint64_t> uses;  // every (operand, user) pair of the list: what users lists hold
    size_t count = 0;
    const Node* prev = nullptr;
    // The name check looks every node up in the name index, a cache miss per node on a big
    // graph: its slot is fetched a few nodes ahead.
    const Node* ahead = graph_.first();
    for (size_t i = 0; i < kNamesAhead && ahead != nullptr; ++i) {
      graph_.prefetch_name(ahead->name());
      ahead = ahead->next();
    }
    for (const Node* node : graph_.nodes()) {
      ++count;
      if (ahead != nullptr) {
        graph_.prefetch_name(ahead->name());
        ahead = ahead->next();
      }
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
        if (!is_defined(defined, in.node)) {
          fail(node, "input " + std::to_string(i) + " '" + in.node->name() +
                         "' is not defined before its use");
        }
        uses.push_back(use(in.node, node));
      }
      check_kind(node);
      defined[node->id()] = 1;
      prev = node;
    }
    if (count != graph_.size()) fail(nullptr, "live node count does not match the list");
    if (graph_.output() == nullptr) fail(nullptr, "graph has no output node");
    check_users(std::move(uses));
    return diags_.error_count() == errors_before;
  }

 private:
  /// An (operand, user) pair as one sortable number: the ids of the two nodes.
  static uint64_t use(const Node* used, const Node* user) {
    return uint64_t{used->id()} << 32 | user->id();
  }

  bool is_defined(const std::vector<char>& defined, const Node* n) const {
    return graph_.node(n->id()) == n && defined[n->id()] != 0;
  }

  /// Each node's users list holds exactly the nodes that read it, once per use: the uses of
  /// the list, sorted, against the users lists, sorted.
  void check_users(std::vector<uint64_t> uses) {
    std::vector<uint64_t> listed;
    listed.reserve(uses.size());
    for (const Node* node : graph_.nodes()) {
      for (const Node* user : node->users()) listed.push_back(use(node, user));
    }
    std::sort(uses.begin(), uses.end());
    std::sort(listed.begin(), listed.end());
    if (uses == listed) return;
    // Name each node whose two lists differ.
    for (const Node* node : graph_.nodes()) {
      auto of = [&](const std::vector<uint64_t>& v) {
        return std::equal_range(v.begin(), v.end(), uint64_t{node->id()} << 32,
                                [](uint64_t a, uint64_t b) { return (a >> 32) < (b >> 32); });
      };
      auto [a, b] = of(uses);
      auto [c, d] = of(listed);
      if (!std::equal(a, b, c, d)) fail(node, "user list does not match the uses of this node");
    }
  }

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
      if (!inferred) {
        fail(node, node->target() + " rejects its inputs: " + error);
      } else if (!(*inferred == *node->type())) {
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
