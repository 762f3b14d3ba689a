// Constant tensors referenced by get_attr nodes: weights memory-mapped from safetensors, and
// tensors created by rewrites (folded batch-norm weights). A tensor's bytes are immutable and
// kept alive by `owner`, so a graph and its clones can share them without copying.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/shape.h"
#include "engine/support/string_map.h"

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

/// Name -> tensor. Unordered (rewrites add a constant per fold, and lookups by long, similar
/// names are hot); whoever needs an order sorts — the saver writes tensors sorted by name.
class ConstantStore {
 public:
  using Map = StringMap<ConstantTensor>;

  const ConstantTensor* find(std::string_view name) const;
  void set(const std::string& name, ConstantTensor tensor) { tensors_[name] = std::move(tensor); }
  bool erase(std::string_view name);
  bool contains(std::string_view name) const { return tensors_.contains(name); }
  const Map& all() const { return tensors_; }
  /// `base` if unused, otherwise `base_1`, `base_2`, …
  std::string unique_name(const std::string& base) const;

 private:
  Map tensors_;
};

}  // namespace graft
