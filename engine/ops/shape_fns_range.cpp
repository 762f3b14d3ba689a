// Shape function of arange, the op whose length follows its bounds: a symbolic end (arange(T)
// in a model exported at any T) gives the dim T, other symbolic bounds an unknown dim.
#include <cmath>
#include <limits>

#include "engine/ops/arange_length.h"
#include "engine/ops/shape_fns.h"

namespace graft {

std::optional<Scalar> arange_bound(const Scalar& value, bool integral, std::string* error) {
  if (!integral || value.is_int) return value;
  const std::optional<int64_t> i = std::isfinite(value.value)
                                       ? exact_int64(std::trunc(value.value))
                                       : std::nullopt;
  if (!i) {
    *error = "the bound " + scalar_to_string(value) + " does not fit in int64";
    return std::nullopt;
  }
  return Scalar{static_cast<double>(*i), true};
}

std::optional<int64_t> arange_length(const Scalar& start, const Scalar& end, const Scalar& step,
                                     std::string* error) {
  if (step.value == 0) {
    *error = "step must be nonzero";
    return std::nullopt;
  }
  if (!std::isfinite(start.value) || !std::isfinite(end.value) || std::isnan(step.value)) {
    *error = "unsupported range: " + scalar_to_string(start) + " -> " + scalar_to_string(end);
    return std::nullopt;
  }
  if ((step.value > 0 && end.value < start.value) || (step.value < 0 && end.value > start.value)) {
    *error = "upper bound and larger bound inconsistent with step sign";
    return std::nullopt;
  }
  const double length = std::ceil((end.value - start.value) / step.value);
  if (!(length >= 0 && length < 9223372036854775808.0)) {
    *error = "the range " + scalar_to_string(start) + " -> " + scalar_to_string(end) +
             " by " + scalar_to_string(step) + " has too many elements";
    return std::nullopt;
  }
  return static_cast<int64_t>(length);
}

}  // namespace graft

namespace graft::shape_fns {
namespace {

/// A bound of arange: a number, or nullopt for a symbol.
std::optional<Scalar> bound(const InferInputs& in, const std::string& name) {
  if (in.symbol_attr(name) != nullptr) return std::nullopt;
  return scalar_attr(in, name);
}

}  // namespace

Result arange(const InferInputs& in, std::string* error) {
  const std::string* end_symbol = in.symbol_attr("end");
  const bool start_symbolic = in.symbol_attr("start") != nullptr;
  std::optional<Scalar> start = bound(in, "start"), end = bound(in, "end");
  std::optional<Scalar> step = scalar_attr(in, "step");
  if (!step) {
    *error = "step must be a number";
    return std::nullopt;
  }
  DType dtype = DType::kInt64;
  if (!is_none(in.attr("dtype"))) {
    const auto& text = std::get<std::string>(in.attr("dtype"));
    std::optional<DType> named = parse_dtype(text);
    if (!named || (*named != DType::kFloat32 && *named != DType::kInt64)) {
      *error = "dtype must be 'float32' or 'int64', got '" + text + "'";
      return std::nullopt;
    }
    dtype = *named;
  } else if ((start && !start->is_int) || (end && !end->is_int) || !step->is_int) {
    dtype = DType::kFloat32;  // torch's default dtype once a bound is a float
  }
  Dim length = unknown_dim();
  const bool integral = dtype == DType::kInt64;
  if (!(step = arange_bound(*step, integral, error))) return std::nullopt;
  if (start && !(start = arange_bound(*start, integral, error))) return std::nullopt;
  if (end && !(end = arange_bound(*end, integral, error))) return std::nullopt;
  if (start && end) {
    std::optional<int64_t> n = arange_length(*start, *end, *step, error);
    if (!n) return std::nullopt;
    length = *n;
  } else if (end_symbol != nullptr && is_symbol_name(*end_symbol) && !start_symbolic && start &&
             start->value == 0 && step->value == 1) {
    length = dim_symbol(*end_symbol);  // arange(T): T values; arange(2*T)'s length is unknown
  }
  return TensorType{dtype, {length}};
}

}  // namespace graft::shape_fns
