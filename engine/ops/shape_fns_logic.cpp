// Shape functions of the comparison, selection and dtype ops: comparisons and logical ops give
// bool, where and masked_fill select between broadcast operands (a bool condition or mask),
// full_like and to produce a named dtype, cumsum and argmax/argmin follow torch's dtype rules.
#include <cfloat>
#include <cmath>

#include "engine/ops/shape_fns.h"
#include "engine/ops/shape_infer.h"
#include "engine/ops/type_promotion.h"

namespace graft::shape_fns {
namespace {

/// False after setting `error` unless operand `i` is a bool tensor (torch refuses other masks).
bool require_bool(const InferInputs& in, size_t i, std::string* error) {
  const TensorType* t = require_tensor(in, i, error);
  if (t == nullptr) return false;
  if (t->dtype == DType::kBool) return true;
  *error = operand_name(in, i) + " has dtype " + dtype_name(t->dtype) + ", expected bool";
  return false;
}

/// The dtype named by str attribute `name`; nullopt after setting `error` for another string.
std::optional<DType> dtype_attr(const InferInputs& in, const std::string& name,
                                std::string* error) {
  const auto& text = std::get<std::string>(in.attr(name));
  if (std::optional<DType> dtype = parse_dtype(text)) return dtype;
  *error = "unknown " + name + " '" + text + "' (known: " + all_dtype_names() + ")";
  return std::nullopt;
}

/// The largest magnitude `dtype` holds, as torch checks a fill value against it (an infinity
/// or NaN fits a floating dtype); 0 for bool, which takes any value.
double dtype_limit(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return FLT_MAX;
    case DType::kFloat64: return INFINITY;
    case DType::kFloat16: return 65504.0;
    case DType::kBFloat16: return 3.3895313892515355e38;
    case DType::kInt64: return 0x1p63;
    case DType::kInt32: return 0x1p31;
    case DType::kInt16: return 0x1p15;
    case DType::kInt8: return 0x1p7;
    case DType::kUInt8: return 0x1p8;
    case DType::kBool: return 0;
  }
  return 0;
}

}  // namespace

bool check_fill_value(const char* what, const Scalar& value, DType dtype, std::string* error) {
  double v = value.value;
  bool fits = true;
  if (dtype == DType::kBool || std::isnan(v)) {
    fits = dtype == DType::kBool || is_floating(dtype);
  } else if (is_floating(dtype)) {
    fits = std::isinf(v) || std::fabs(v) <= dtype_limit(dtype);
  } else {
    double t = std::trunc(v);
    double limit = dtype_limit(dtype);
    double low = dtype == DType::kUInt8 ? 0 : -limit;
    fits = t >= low && t < limit;  // also false for an infinity
  }
  if (fits) return true;
  *error = std::string(what) + " " + scalar_to_string(value) + " cannot be converted to " +
           dtype_name(dtype) + " without overflow";
  return false;
}

namespace {

/// The broadcast of the shapes of the tensor operands among 0 .. count - 1 (at least one).
std::optional<Shape> broadcast_tensors(const InferInputs& in, size_t count, std::string* error) {
  std::optional<Shape> shape;
  for (size_t i = 0; i < count; ++i) {
    const TensorType* t = in.type(i);
    if (t == nullptr) continue;
    std::optional<Shape> b = shape ? broadcast_shapes(*shape, t->shape) : t->shape;
    if (!b) {
      *error = "shapes " + shape_to_string(*shape) + " and " + shape_to_string(t->shape) +
               " cannot be broadcast";
      return std::nullopt;
    }
    shape = std::move(b);
  }
  return shape;
}

}  // namespace

Result compare(const InferInputs& in, std::string* error) {
  if (require_tensor(in, 0, error) == nullptr) return std::nullopt;
  Result out = broadcast_promote(in, error);
  if (!out) return std::nullopt;
  out->dtype = DType::kBool;
  return out;
}

Result logical(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  if (in.schema->operands.size() == 1) return TensorType{DType::kBool, x->shape};
  if (require_tensor(in, 1, error) == nullptr) return std::nullopt;
  return compare(in, error);  // the same broadcast, and a bool result
}

Result where(const InferInputs& in, std::string* error) {
  if (!require_bool(in, 0, error)) return std::nullopt;
  ResultType dtype;
  for (size_t i = 1; i < 3; ++i) {
    if (const TensorType* t = in.type(i)) {
      dtype.add(*t);
    } else if (i < in.scalars.size() && in.scalars[i]) {
      dtype.add(*in.scalars[i]);
    } else {
      *error = operand_name(in, i) + " must be a tensor or a number";
      return std::nullopt;
    }
  }
  std::optional<Shape> shape = broadcast_tensors(in, 3, error);
  if (!shape) return std::nullopt;
  return TensorType{*dtype.dtype(), std::move(*shape)};
}

Result masked_fill(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_bool(in, 1, error)) return std::nullopt;
  std::optional<Scalar> value = scalar_attr(in, "value");
  if (!value) {
    *error = "value must be a number";
    return std::nullopt;
  }
  if (!check_fill_value("value", *value, x->dtype, error)) return std::nullopt;
  std::optional<Shape> shape = broadcast_tensors(in, 2, error);
  if (!shape) return std::nullopt;
  return TensorType{x->dtype, std::move(*shape)};
}

Result full_like(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  DType dtype = x->dtype;
  if (!is_none(in.attr("dtype"))) {
    std::optional<DType> named = dtype_attr(in, "dtype", error);
    if (!named) return std::nullopt;
    dtype = *named;
  }
  std::optional<Scalar> value = scalar_attr(in, "fill_value");
  if (!value) {
    *error = "fill_value must be a number";
    return std::nullopt;
  }
  if (!check_fill_value("fill_value", *value, dtype, error)) return std::nullopt;
  return TensorType{dtype, x->shape};
}

Result to_dtype(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<DType> dtype = dtype_attr(in, "dtype", error);
  if (!dtype) return std::nullopt;
  return TensorType{*dtype, x->shape};
}

Result cumsum(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !wrap_dim(in.int_attr("dim"), x->rank(), error)) return std::nullopt;
  // torch sums integers and bools in int64, as sum does.
  return TensorType{is_floating(x->dtype) ? x->dtype : DType::kInt64, x->shape};
}

Result arg_reduce(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  if (x->dtype == DType::kBool) {
    *error = "input has dtype bool, which torch has no " + in.schema->name + " kernel for";
    return std::nullopt;
  }
  bool keepdim = in.bool_attr("keepdim");
  const AttrValue& dim_attr = in.attr("dim");
  if (is_none(dim_attr)) {
    // The index into the flattened input: there must be an element.
    if (element_count(x->shape) == 0) {
      *error = "input " + shape_to_string(x->shape) + " is empty; give the dim to reduce";
      return std::nullopt;
    }
    return TensorType{DType::kInt64, keepdim ? Shape(x->shape.size(), 1) : Shape{}};
  }
  std::optional<int64_t> dim = wrap_dim(std::get<int64_t>(dim_attr), x->rank(), error);
  if (!dim) return std::nullopt;
  if (x->rank() == 0) return TensorType{DType::kInt64, {}};
  Shape shape = x->shape;
  auto d = static_cast<size_t>(*dim);
  if (shape[d] == 0) {
    *error = "dim " + std::to_string(*dim) + " of input " + shape_to_string(x->shape) +
             " is empty: there is no index to give";
    return std::nullopt;
  }
  if (keepdim) {
    shape[d] = 1;
  } else {
    shape.erase(shape.begin() + *dim);
  }
  return TensorType{DType::kInt64, std::move(shape)};
}

}  // namespace graft::shape_fns
