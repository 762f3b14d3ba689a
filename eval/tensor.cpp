// Host tensor helpers: allocation, random fill, comparison and summaries.
#include "eval/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "engine/ir/half.h"
#include "engine/support/check.h"
#include "eval/allocation.h"

namespace graft::eval {
namespace {

std::shared_ptr<void> allocate(DType dtype, const Shape& shape) {
  // Callers check shapes they are given, so this is the last line: a byte count that
  // overflowed would have wrapped into an absurd request ("cannot allocate 14.0 EiB").
  std::optional<int64_t> count = element_count(shape);
  const auto size = static_cast<int64_t>(dtype_size(dtype));
  if (!count || *count > kMaxTensorBytes / size) {
    throw AllocationError(size_limit_message({dtype, shape}));
  }
  const auto bytes = static_cast<size_t>(*count * size);
  // 64-byte alignment matches oneDNN's preference for user buffers (a cache line, AVX-512).
  return allocate_buffer(bytes, 64, true,
                         [&] { return "a tensor of " + type_to_string({dtype, shape}); });
}

}  // namespace

int64_t Tensor::numel() const {
  // A zero anywhere makes an empty tensor whose other dims may multiply past int64.
  if (std::find(shape_.begin(), shape_.end(), 0) != shape_.end()) return 0;
  int64_t n = 1;
  for (Dim d : shape_) n *= d;
  return n;
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  GRAFT_CHECK(is_concrete(t.shape_)) << "tensor shape must be concrete";
  t.owner_ = allocate(t.dtype_, t.shape_);
  t.data_ = t.owner_.get();
  return t;
}

Tensor Tensor::from_floats(Shape shape, const std::vector<float>& values) {
  Tensor t = zeros(DType::kFloat32, std::move(shape));
  GRAFT_CHECK(static_cast<int64_t>(values.size()) == t.numel())
      << "from_floats: " << values.size() << " values for " << t.numel() << " elements";
  if (!values.empty()) std::memcpy(t.data_, values.data(), values.size() * sizeof(float));
  return t;
}

Tensor Tensor::from_ints(Shape shape, const std::vector<int64_t>& values) {
  Tensor t = zeros(DType::kInt64, std::move(shape));
  GRAFT_CHECK(static_cast<int64_t>(values.size()) == t.numel())
      << "from_ints: " << values.size() << " values for " << t.numel() << " elements";
  if (!values.empty()) std::memcpy(t.data_, values.data(), values.size() * sizeof(int64_t));
  return t;
}

Tensor Tensor::from_bools(Shape shape, const std::vector<bool>& values) {
  Tensor t = zeros(DType::kBool, std::move(shape));
  GRAFT_CHECK(static_cast<int64_t>(values.size()) == t.numel())
      << "from_bools: " << values.size() << " values for " << t.numel() << " elements";
  for (size_t i = 0; i < values.size(); ++i) t.b8()[i] = values[i] ? 1 : 0;
  return t;
}

Tensor Tensor::borrow(DType dtype, Shape shape, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = data;
  return t;
}

Tensor Tensor::random(Shape shape, uint64_t seed, float lo, float hi) {
  Tensor t = zeros(DType::kFloat32, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.f32();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(rng);
  return t;
}

Tensor Tensor::random_ints(Shape shape, uint64_t seed, int64_t lo, int64_t hi) {
  GRAFT_CHECK(lo < hi) << "random_ints: empty range";
  Tensor t = zeros(DType::kInt64, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.i64()[i] = dist(rng);
  return t;
}

Tensor Tensor::random_of(DType dtype, Shape shape, uint64_t seed, int64_t int_bound) {
  if (dtype == DType::kInt64) return random_ints(std::move(shape), seed, 0, std::max<int64_t>(int_bound, 1));
  if (dtype == DType::kBool) {
    Tensor ints = random_ints(shape, seed, 0, 2);
    Tensor t = zeros(DType::kBool, std::move(shape));
    for (int64_t i = 0; i < t.numel(); ++i) t.b8()[i] = static_cast<uint8_t>(ints.i64()[i]);
    return t;
  }
  if (is_half(dtype)) return convert_float(random(std::move(shape), seed), dtype);
  return random(std::move(shape), seed);
}

double Tensor::value_at(int64_t i) const {
  switch (dtype_) {
    case DType::kFloat32: return f32()[i];
    case DType::kFloat64: return static_cast<const double*>(data_)[i];
    case DType::kInt64: return static_cast<double>(i64()[i]);
    case DType::kInt32: return static_cast<const int32_t*>(data_)[i];
    case DType::kInt16: return static_cast<const int16_t*>(data_)[i];
    case DType::kInt8: return static_cast<const int8_t*>(data_)[i];
    case DType::kUInt8: return static_cast<const uint8_t*>(data_)[i];
    case DType::kBool: return b8()[i] != 0 ? 1.0 : 0.0;
    case DType::kFloat16:
    case DType::kBFloat16: return half_bits_to_float(dtype_, static_cast<const uint16_t*>(data_)[i]);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Tensor Tensor::clone() const {
  Tensor t = zeros(dtype_, shape_);
  if (nbytes() > 0) std::memcpy(t.data_, data_, nbytes());
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  GRAFT_CHECK(t.numel() == numel()) << "reshape changes the element count";
  return t;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) {
    return std::numeric_limits<double>::infinity();
  }
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double d = std::fabs(a.value_at(i) - b.value_at(i));
    if (std::isnan(d)) return d;
    worst = std::max(worst, d);
  }
  return worst;
}

Tensor convert_float(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  GRAFT_CHECK((t.dtype() == DType::kFloat32 || is_half(t.dtype())) &&
              (dtype == DType::kFloat32 || is_half(dtype)))
      << "convert_float converts float32, float16 and bfloat16 only";
  Tensor out = Tensor::zeros(dtype, t.shape());
  const int64_t n = t.numel();
  if (dtype == DType::kFloat32) {
    for (int64_t i = 0; i < n; ++i) out.f32()[i] = static_cast<float>(t.value_at(i));
  } else {
    auto* bits = static_cast<uint16_t*>(out.data());
    for (int64_t i = 0; i < n; ++i) bits[i] = float_to_half_bits(dtype, static_cast<float>(t.value_at(i)));
  }
  return out;
}

bool is_close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (!is_close(a.value_at(i), b.value_at(i), rtol, atol)) return false;
  }
  return true;
}

std::string tensor_summary(const Tensor& t) {
  std::ostringstream out;
  out << dtype_name(t.dtype()) << shape_to_string(t.shape());
  if (t.dtype() != DType::kFloat32 && t.dtype() != DType::kInt64 && t.dtype() != DType::kBool &&
      !is_half(t.dtype())) {
    return out.str();
  }
  double sum = 0;
  double abs_sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    sum += t.value_at(i);
    abs_sum += std::fabs(t.value_at(i));
  }
  out << " sum=" << sum << " abs_sum=" << abs_sum;
  if (t.numel() > 0) out << " mean=" << sum / static_cast<double>(t.numel());
  out << " first=[";
  for (int64_t i = 0; i < std::min<int64_t>(t.numel(), 4); ++i) out << (i ? ", " : "") << t.value_at(i);
  out << (t.numel() > 4 ? ", …]" : "]");
  return out.str();
}

}  // namespace graft::eval
