// Reference kernel of arange: start + i * step for i < ceil((end - start) / step), in int64
// arithmetic for an int64 result (its bounds truncated first, as torch's accumulation type
// for int64 has them), else in double rounded once to float32.
#include "engine/ops/arange_length.h"
#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// A bound as the result's dtype takes it; nullopt after setting the error for a symbol or a
/// value that is not a number.
std::optional<Scalar> bound(const Call& call, const std::string& name, bool integral) {
  const AttrValue* v = call.attr(name);
  if (v == nullptr) return std::nullopt;
  std::optional<Scalar> s;
  if (const auto* i = std::get_if<int64_t>(v)) s = Scalar{static_cast<double>(*i), true};
  if (const auto* d = std::get_if<double>(v)) s = Scalar{*d, false};
  if (!s) {
    call.fail("attribute '" + name + "' is " + attr_to_string(*v) + ", not a number");
    return std::nullopt;
  }
  return arange_bound(*s, integral, call.error);
}

/// An integral bound's exact value (an int64 attribute is read as such: a double would round
/// those beyond 2^53).
int64_t exact(const Call& call, const std::string& name, const Scalar& s) {
  const auto* i = std::get_if<int64_t>(call.attr(name));
  return i != nullptr ? *i : static_cast<int64_t>(s.value);
}

}  // namespace

bool arange(const Call& call, Tensor& out) {
  const bool integral = out.dtype() == DType::kInt64;
  if (!integral && out.dtype() != DType::kFloat32) {
    return call.fail("arange computes float32 and int64 only");
  }
  std::optional<Scalar> start = bound(call, "start", integral);
  std::optional<Scalar> end = bound(call, "end", integral);
  std::optional<Scalar> step = bound(call, "step", integral);
  if (!start || !end || !step) return false;
  std::optional<int64_t> length = arange_length(*start, *end, *step, call.error);
  if (!length) return false;
  if (*length != out.numel()) {
    return call.fail("arange gives " + std::to_string(*length) + " values, the result holds " +
                     std::to_string(out.numel()));
  }
  if (integral) {
    // Unsigned arithmetic: int64 wraps as torch's does, without undefined behaviour.
    const auto first = static_cast<uint64_t>(exact(call, "start", *start));
    const auto stride = static_cast<uint64_t>(exact(call, "step", *step));
    for (int64_t i = 0; i < *length; ++i) {
      out.i64()[i] = static_cast<int64_t>(first + static_cast<uint64_t>(i) * stride);
    }
    return true;
  }
  for (int64_t i = 0; i < *length; ++i) {
    out.f32()[i] = static_cast<float>(start->value + static_cast<double>(i) * step->value);
  }
  return true;
}

}  // namespace graft::eval::ref
