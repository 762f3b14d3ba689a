// Constant tensor helpers.
#include "engine/constants.h"

#include <cstring>

namespace graft {

ConstantTensor ConstantTensor::owned(DType dtype, Shape shape, std::vector<std::byte> bytes) {
  auto buffer = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  ConstantTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = buffer->data();
  t.nbytes = buffer->size();
  t.owner = std::move(buffer);
  return t;
}

ConstantTensor ConstantTensor::from_floats(Shape shape, const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return owned(DType::kFloat32, std::move(shape), std::move(bytes));
}

const ConstantTensor* ConstantStore::find(std::string_view name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

bool ConstantStore::erase(std::string_view name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return false;
  tensors_.erase(it);
  return true;
}

std::string ConstantStore::unique_name(const std::string& base) const {
  if (!contains(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!contains(candidate)) return candidate;
  }
}

}  // namespace graft
