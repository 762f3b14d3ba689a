#include "engine/rewrite/type_memo.h"

#include "engine/ops/shape_infer.h"

namespace graft {

bool TypeMemo::infer(const Node& node, const TensorType** type, std::string* error) {
  if (same_as_last(node)) {
    *type = result_;
    ++hits_;
    return true;
  }
  std::optional<TensorType> inferred = infer_node_type(node, error);
  if (!inferred) {
    valid_ = false;
    ++generation_;
    return false;
  }
  *type = unique_type(*inferred);
  remember(node, *type);
  return true;
}

bool TypeMemo::same_as_last(const Node& node) const {
  return node.schema() != nullptr && same_as_last(*node.schema(), node.inputs(), node.attrs());
}

bool TypeMemo::same_as_last(const OpSchema& schema, std::span<const Input> inputs,
                            const std::vector<AttrValue>& attrs) const {
  if (!valid_ || &schema != schema_ || inputs.size() != operands_.size()) return false;
  for (size_t i = 0; i < operands_.size(); ++i) {
    const Input& in = inputs[i];
    const Operand& last = operands_[i];
    if (in.kind != last.kind) return false;
    if (in.is_node() && in.node->type() != last.type) return false;
    if (in.is_scalar() && !scalars_identical(in.scalar, last.scalar)) return false;
  }
  // Bit for bit: a prepared fold (ConstantFolder::prepare) reuses the literals and attributes
  // it was made with, and x * -0.0 is not x * 0.0. (Interned lists are identical iff they are
  // one list.)
  if (attrs_interned_) return &attrs == interned_attrs_;
  return attrs_identical(attrs, attrs_);
}

void TypeMemo::remember(const Node& node, const TensorType* result) {
  schema_ = node.schema();
  operands_.resize(node.inputs().size());
  for (size_t i = 0; i < operands_.size(); ++i) {
    const Input& in = node.input(i);
    Operand& last = operands_[i];
    last.kind = in.kind;
    last.type = in.is_node() ? in.node->type() : nullptr;
    last.scalar = in.is_scalar() ? in.scalar : Scalar{};
  }
  if (attrs_interned_) {
    interned_attrs_ = &node.attrs();
  } else {
    attrs_.assign(node.attrs().begin(), node.attrs().end());
  }
  result_ = result;
  valid_ = true;
  ++generation_;
}

}  // namespace graft
