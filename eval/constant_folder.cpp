#include "eval/constant_folder.h"

#include <cstdint>
#include <cstring>

#include "eval/elementwise_fold.h"
#include "eval/reference.h"

namespace graft::eval {

namespace {

/// Ops whose result has the operand's bytes in another shape.
bool is_relabelling(const OpSchema* op) {
  return op != nullptr && (op->family == OpFamily::kView || op->family == OpFamily::kIdentity);
}

/// reshape(scale, [-1, 1, 1, 1]) prepared: the operand's bytes under the result's shape.
class PreparedRelabel final : public PreparedFold {
 public:
  PreparedRelabel(const TensorType* type, int64_t numel) : type_(type), numel_(numel) {}
  bool run(const std::vector<const ConstantTensor*>& operands,
           ConstantTensor* result) const override {
    if (operands.empty() || operands[0] == nullptr || operands[0]->dtype() != type_->dtype ||
        operands[0]->numel() != numel_) {
      return false;
    }
    *result = *operands[0];
    result->set_type(type_);
    return true;
  }

 private:
  const TensorType* type_;  // uniqued
  int64_t numel_;
};

std::unique_ptr<PreparedFold> prepare(const Node& node) {
  if (!node.type() || !is_concrete(node.type()->shape)) return nullptr;
  if (is_relabelling(node.schema())) {
    std::optional<int64_t> numel = element_count(node.type()->shape);
    if (!numel) return nullptr;
    return std::make_unique<PreparedRelabel>(node.type(), *numel);
  }
  return prepare_elementwise(node);
}

}  // namespace

ConstantFolder reference_constant_folder(FoldPath path) {
  ConstantFolder folder;
  // The generic path alone prepares nothing: every fold goes through it.
  if (path == FoldPath::kFastElementwise) folder.prepare = prepare;
  folder.fold = [path](const Node& node, const std::vector<const ConstantTensor*>& operands,
                       std::string* error) -> std::optional<ConstantTensor> {
    if (!node.type() || !is_concrete(node.type()->shape)) {
      *error = "the result has no concrete type";
      return std::nullopt;
    }
    // reshape(scale, [-1, 1, 1, 1]) in every batch-norm fold: the result shares the operand's
    // bytes (constants are immutable), no buffer and no copy.
    if (is_relabelling(node.schema())) {
      if (std::optional<int64_t> numel = element_count(node.type()->shape)) {
        ConstantTensor view;
        if (PreparedRelabel(node.type(), *numel).run(operands, &view)) return view;
      }
    }
    // The add / rsqrt / mul / sub of every batch-norm fold, on [8]-element tensors, computed
    // where the operands lie: for tensors this small the generic path below spends most of its
    // time wrapping operands and dispatching. Whatever the fast path cannot compute
    // exactly as the generic one would, it declines.
    if (path == FoldPath::kFastElementwise) {
      if (std::optional<ConstantTensor> folded = fold_elementwise(node, operands)) return folded;
    }
    if (node.schema() == nullptr || !has_reference(*node.schema())) {
      *error = "no reference kernel for '" + node.target() + "'";
      return std::nullopt;
    }
    // Views where the bytes are aligned for their dtype; copies otherwise (safetensors data
    // need not be).
    std::vector<Tensor> tensors(operands.size());
    std::vector<RefOperand> refs(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) {
      const Input& in = node.input(i);
      if (in.is_scalar()) {
        refs[i].scalar = in.scalar.value;
      } else if (operands[i] != nullptr) {
        const DType dtype = operands[i]->dtype();
        const std::byte* data = operands[i]->data;
        if (reinterpret_cast<uintptr_t>(data) % dtype_size(dtype) == 0) {
          // The kernels only read their operands: the const_cast never leads to a write.
          tensors[i] = Tensor::borrow(dtype, operands[i]->shape(), const_cast<std::byte*>(data));
        } else {
          tensors[i] = Tensor::zeros(dtype, operands[i]->shape());
          if (operands[i]->nbytes > 0) std::memcpy(tensors[i].data(), data, operands[i]->nbytes);
        }
        refs[i].tensor = &tensors[i];
      }
    }
    // The reference refuses dtypes its kernel does not compute in (float32 arithmetic on
    // int64 constants): those stay unfolded.
    Tensor out = Tensor::zeros(node.type()->dtype, node.type()->shape);
    if (!reference_op(node, refs, out, error)) return std::nullopt;
    // The result keeps the kernel's buffer: no copy.
    ConstantTensor result;
    result.set_type(node.type());  // the out tensor's type: made from it above
    result.data = static_cast<const std::byte*>(out.data());
    result.nbytes = out.nbytes();
    result.owner = out.owner();
    return result;
  };
  return folder;
}

}  // namespace graft::eval
