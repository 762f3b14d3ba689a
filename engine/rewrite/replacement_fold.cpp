// Folding a match's replacement ops over constants (see replacement_builder.h): a folded op is
// a detached constant until a graph op or a result reads it, and the constants and root
// replacements a match created are named once the nodes it replaced are gone.
#include <algorithm>

#include "engine/rewrite/replacement_builder.h"

namespace graft {

/// Evaluates a replacement op over constants without adding it to the graph: the result is a
/// detached constant, materialised only if a graph op or a result reads it. The op's operands
/// are in op_inputs_, its attributes `attrs`.
std::optional<Input> ReplacementBuilder::fold(const Match& m, const ReplOp& op, OpMemo& memo,
                                              const AttrList& attrs) {
  const TensorType* type = nullptr;
  std::string error;
  if (!fold_value(op, memo, attrs, &type, &error)) return report(m, op, error);
  // Entries of earlier matches are reused: their nodes keep their storage.
  if (folded_count_ == folded_.size()) folded_.emplace_back();
  Folded& f = folded_[folded_count_++];
  if (f.node == nullptr) {
    f.node = Graph::make_detached_constant(type);
    folded_nodes_.push_back(f.node.get());
  } else {
    Graph::reset_detached_constant(*f.node, type);
  }
  std::swap(f.value, fold_value_);
  f.materialized = nullptr;
  return Input::of(f.node.get());
}

/// Computes op `op` over op_inputs_ into fold_value_ and sets `*type` to the result's type;
/// false with `*error` set when the op rejects its inputs or cannot be folded. While the
/// operands have the types, literals and attributes of the op's last fold, its type and its
/// prepared fold (ConstantFolder::prepare) are reused: no scratch node, no inference, no
/// kernel lookup.
bool ReplacementBuilder::fold_value(const ReplOp& op, OpMemo& memo, const AttrList& attrs,
                                    const TensorType** type, std::string* error) {
  std::vector<const ConstantTensor*>& operands = fold_operands_;
  operands.clear();
  for (const Input& in : op_inputs_) {
    const ConstantTensor* t = nullptr;
    if (in.is_node()) {
      Folded* f = folded_of(in.node);
      t = f != nullptr ? &f->value : graph_.constant(*in.node);
    }
    operands.push_back(t);
  }
  ConstantTensor& value = fold_value_;
  if (memo.prepared != nullptr && memo.prepared_for == memo.type.generation() &&
      memo.type.same_as_last(*op.schema, op_inputs_, attrs) &&
      memo.prepared->run(operands, &value)) {
    value.buffer = computed_from_buffers(operands);
    *type = memo.type.result();
    return true;
  }
  Graph::reset_detached_call(fold_call_, *op.schema, op_inputs_, &attrs);
  Node* call = fold_call_.get();
  std::string err;
  if (!memo.type.infer(*call, &call->meta().type, &err)) {
    *error = op.schema->name + " rejects its inputs: " + err;
    return false;
  }
  if (memo.prepared_for != memo.type.generation()) {
    memo.prepared = fold_.prepare ? fold_.prepare(*call) : nullptr;
    memo.prepared_for = memo.type.generation();
  }
  if (memo.prepared == nullptr || !memo.prepared->run(operands, &value)) {
    std::optional<ConstantTensor> folded = fold_.fold(*call, operands, &err);
    if (!folded) {
      *error = "cannot fold " + op.schema->name + ": " + err;
      return false;
    }
    value = std::move(*folded);
  }
  value.buffer = computed_from_buffers(operands);
  *type = call->type();
  return true;
}

Node* ReplacementBuilder::in_graph(Node* n, const std::string& name, Node* before,
                                   std::vector<Node*>* created) {
  Folded* f = folded_of(n);
  if (f == nullptr) return n;
  return f->materialized != nullptr ? f->materialized : materialize(*f, name, before, created);
}

/// Adds a get_attr node for folded value `f` to the graph, before `before`. The value goes
/// into the constants, named `target` (or made unique), once the match is applied
/// (name_unnamed): the name is usually taken until then by a constant the match erases.
Node* ReplacementBuilder::materialize(Folded& f, std::string target, Node* before,
                                      std::vector<Node*>* created) {
  Node* saved = graph_.insert_point();
  graph_.set_insert_point(before);
  Node* node = graph_.add_unnamed_get_attr(f.node->type());
  graph_.set_insert_point(saved);
  created->push_back(node);
  f.materialized = node;
  unnamed_constants_.push_back({node, std::move(target), &f});
  return node;
}

ReplacementBuilder::Folded* ReplacementBuilder::folded_of(const Node* n) {
  if (!n->is(NodeKind::kGetAttr)) return nullptr;
  for (size_t i = 0; i < folded_count_; ++i) {
    if (folded_nodes_[i] == n) return &folded_[i];
  }
  return nullptr;
}

/// A folded constant takes the name it was made for ("bn1.weight") unless a live node still
/// reads a constant by that name.
void ReplacementBuilder::name_unnamed() {
  for (const UnnamedCall& c : unnamed_calls_) {
    if (c.node->name().empty()) graph_.name_fresh(c.node, c.hint, *c.name_memo);
  }
  unnamed_calls_.clear();
  for (UnnamedConstant& c : unnamed_constants_) {
    if (c.node->is_dead()) continue;
    std::string& target = c.target;
    ConstantStore& store = graph_.constants();
    if (SharedConstants::Stored* same = shared_.find(store, c.folded->value)) {
      graph_.set_constant(c.node, same->name, same->ref);
      graph_.name_fresh(c.node, same->node_name, same->node_names);
      continue;
    }
    // Usually `target` is a constant of the match itself (the batch norm's weight
    // "bn1.weight" for the fused conv "bn1"), whose readers were just erased: the folded
    // value replaces it. While a live node still reads it, the value gets a name of its own.
    // A root named "__metadata__" must not name its folded value so (kReservedConstantName).
    if (target == kReservedConstantName) target = store.unique_name(target);
    ConstantRef ref = store.store_unless_read(target, std::move(c.folded->value));
    if (ref.stamp == 0) {
      target = store.unique_name(target);
      ref = store.store_unless_read(target, std::move(c.folded->value));
    }
    graph_.set_constant(c.node, target, ref);
    const ConstantTensor* value = store.find(target, ref);
    std::string name = target;
    // The node's name is the constant's with '_' for '.', made in `target`'s own buffer.
    std::replace(target.begin(), target.end(), '.', '_');
    const std::string& node_name = graph_.rename(c.node, target);
    if (value != nullptr) shared_.add(*value, std::move(name), ref, node_name);
  }
  unnamed_constants_.clear();
}

}  // namespace graft
