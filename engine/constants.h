// Constant tensors referenced by get_attr nodes: weights memory-mapped from safetensors, and
// tensors created by rewrites (folded batch-norm weights). A tensor's bytes are immutable and
// kept alive by `owner`, so a graph and its clones can share them without copying.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/shape.h"

namespace graft {

struct ConstantTensor {
  DType dtype = DType::kFloat32;
  Shape shape;                        // concrete
  const std::byte* data = nullptr;    // little-endian, row-major, dtype_size(dtype) * count
  size_t nbytes = 0;
  std::shared_ptr<const void> owner;  // the mmapped file or an owned buffer

  TensorType type() const { return {dtype, shape}; }
  int64_t numel() const { return nbytes / dtype_size(dtype); }
  const float* f32() const { return reinterpret_cast<const float*>(data); }
  /// A tensor that owns a copy of `bytes`.
  static ConstantTensor owned(DType dtype, Shape shape, std::vector<std::byte> bytes);
  static ConstantTensor from_floats(Shape shape, const std::vector<float>& values);
};

/// Name -> tensor, ordered by name so saved files are deterministic.
class ConstantStore {
 public:
  const ConstantTensor* find(const std::string& name) const;
  void set(const std::string& name, ConstantTensor tensor) { tensors_[name] = std::move(tensor); }
  bool erase(const std::string& name) { return tensors_.erase(name) > 0; }
  bool contains(const std::string& name) const { return tensors_.count(name) > 0; }
  const std::map<std::string, ConstantTensor>& all() const { return tensors_; }
  /// `base` if unused, otherwise `base_1`, `base_2`, …
  std::string unique_name(const std::string& base) const;

 private:
  std::map<std::string, ConstantTensor> tensors_;
};

}  // namespace graft
