#include "runtime/constant_folder.h"

#include <cstring>

#include "runtime/reference.h"

namespace graft::runtime {

ConstantFolder reference_constant_folder() {
  return [](const Node& node, const std::vector<const ConstantTensor*>& operands,
            std::string* error) -> std::optional<ConstantTensor> {
    if (!node.type() || !is_concrete(node.type()->shape)) {
      *error = "the result has no concrete type";
      return std::nullopt;
    }
    if (!has_reference(node.target())) {
      *error = "no reference kernel for '" + node.target() + "'";
      return std::nullopt;
    }
    // Copies, not views: safetensors data need not be aligned for float loads.
    std::vector<Tensor> tensors(operands.size());
    std::vector<RefOperand> refs(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) {
      const Input& in = node.input(i);
      if (in.is_scalar()) {
        refs[i].scalar = in.scalar.value;
      } else if (operands[i] != nullptr) {
        if (operands[i]->dtype != DType::kFloat32) {
          *error = std::string("folding ") + dtype_name(operands[i]->dtype) +
                   " constants is not implemented (float32 only)";
          return std::nullopt;
        }
        tensors[i] = Tensor::zeros(DType::kFloat32, operands[i]->shape);
        if (operands[i]->nbytes > 0) std::memcpy(tensors[i].data(), operands[i]->data, operands[i]->nbytes);
        refs[i].tensor = &tensors[i];
      }
    }
    if (node.type()->dtype != DType::kFloat32) {
      *error = std::string("folding to ") + dtype_name(node.type()->dtype) + " is not implemented";
      return std::nullopt;
    }
    Tensor out = Tensor::zeros(DType::kFloat32, node.type()->shape);
    if (!reference_op(node, refs, out, error)) return std::nullopt;
    std::vector<std::byte> bytes(out.nbytes());
    if (!bytes.empty()) std::memcpy(bytes.data(), out.data(), bytes.size());
    return ConstantTensor::owned(DType::kFloat32, out.shape(), std::move(bytes));
  };
}

}  // namespace graft::runtime
