// Host tensors: what Executable::run() takes and returns, and what the reference kernels
// compute on. A Tensor is a dtype, a concrete shape and a pointer to dense row-major data that
// it either owns (shared, so copies are cheap views of the same bytes) or borrows from the
// caller. float32, int64 and bool (one byte, 0 or 1) have typed accessors. No oneDNN here:
// this header is part of the runtime's public interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir/shape.h"

namespace graft::eval {

class Tensor {
 public:
  Tensor() = default;
  /// A zero-filled tensor owning its bytes (64-byte aligned above 1 KiB, 16 below).
  static Tensor zeros(DType dtype, Shape shape);
  /// A float32 tensor owning a copy of `values` (whose size must match the shape).
  static Tensor from_floats(Shape shape, const std::vector<float>& values);
  /// An int64 tensor owning a copy of `values`.
  static Tensor from_ints(Shape shape, const std::vector<int64_t>& values);
  /// A bool tensor owning a copy of `values`.
  static Tensor from_bools(Shape shape, const std::vector<bool>& values);
  /// A tensor viewing `data`, which the caller keeps alive and unchanged while it is used.
  static Tensor borrow(DType dtype, Shape shape, void* data);
  /// A float32 tensor of uniform random values in [lo, hi), reproducible for a given seed.
  static Tensor random(Shape shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
  /// An int64 tensor of uniform random values in [lo, hi) (lo < hi), reproducible per seed.
  static Tensor random_ints(Shape shape, uint64_t seed, int64_t lo, int64_t hi);
  /// A random tensor of any dtype graft computes in: float32 uniform in [-1, 1) (float16 and
  /// bfloat16 the same, rounded), bool uniform, int64 uniform in [0, int_bound).
  static Tensor random_of(DType dtype, Shape shape, uint64_t seed, int64_t int_bound = 10);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  bool is_owner() const { return owner_ != nullptr; }
  /// What keeps the bytes alive (null for a borrowed tensor): lets another object share them.
  const std::shared_ptr<void>& owner() const { return owner_; }

  void* data() const { return data_; }
  float* f32() const { return static_cast<float*>(data_); }
  int64_t* i64() const { return static_cast<int64_t*>(data_); }
  /// bool elements: one byte each, 0 or 1.
  uint8_t* b8() const { return static_cast<uint8_t*>(data_); }
  /// Element `i` as a double (int64 beyond 2^53 rounds): for comparisons and summaries.
  double value_at(int64_t i) const;
  /// A deep copy that owns its bytes.
  Tensor clone() const;
  /// The same bytes seen with another shape of the same element count.
  Tensor reshaped(Shape shape) const;

 private:
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  void* data_ = nullptr;
  std::shared_ptr<void> owner_;
};

/// Largest absolute element difference of two tensors of the same shape (infinity if the
/// shapes or dtypes differ, NaN if either holds a NaN).
double max_abs_diff(const Tensor& a, const Tensor& b);
/// `t` (float32, float16 or bfloat16) as a new tensor of float `dtype`: exact into float32,
/// rounded to nearest even into a half format. A tensor already of `dtype` is returned as is.
Tensor convert_float(const Tensor& t, DType dtype);
/// True if |a - b| <= atol + rtol * |b| (numpy.isclose); NaN is close to NaN only, an infinity
/// to the same infinity only.
bool is_close(double a, double b, double rtol = 1e-4, double atol = 1e-5);
/// True if the dtypes and shapes match and every element pair is_close (numpy.allclose).
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-4, double atol = 1e-5);
/// "float32[1, 1000]" plus sum, mean and the first values: a short checksum for the CLI (for
/// int64 and bool too).
std::string tensor_summary(const Tensor& t);

}  // namespace graft::eval
