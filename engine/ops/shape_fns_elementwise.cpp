// Shape functions of the elementwise ops: activations and unary math (the input's shape; the
// dtype depends on the op: relu keeps int64, sigmoid turns it into float32, silu has no integer
// kernel) and broadcasting binary ops with torch's type promotion.
#include <cmath>

#include "engine/ops/shape_fns.h"
#include "engine/ops/shape_infer.h"
#include "engine/ops/type_promotion.h"

namespace graft::shape_fns {

// ** unary **

Result any_dtype(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  return *x;
}

Result same_dtype_no_bool(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  if (x->dtype == DType::kBool) {
    *error = "input has dtype bool, expected a number dtype (use logical ops on masks)";
    return std::nullopt;
  }
  return *x;
}

Result floating_only(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  return *x;
}

Result to_floating(const InferInputs& in, std::string* error) {
  // torch computes sqrt, exp, sigmoid, … of integers and bools in the default float dtype.
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  return TensorType{is_floating(x->dtype) ? x->dtype : kDefaultFloat, x->shape};
}

Result gelu(const InferInputs& in, std::string* error) {
  const auto& approximate = std::get<std::string>(in.attr("approximate"));
  if (approximate != "none" && approximate != "tanh") {
    *error = "approximate must be 'none' or 'tanh', got '" + approximate + "'";
    return std::nullopt;
  }
  return floating_only(in, error);
}

Result dropout(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  double p = in.float_attr("p");
  if (!(p >= 0 && p <= 1)) {
    *error = "p must be between 0 and 1, got " + attr_to_string(AttrValue{p});
    return std::nullopt;
  }
  // Training-mode dropout scales by 1/(1-p), a float; inference-mode dropout is the identity.
  if (in.bool_attr("training") && !require_floating(in, 0, *x, error)) return std::nullopt;
  return *x;
}

Result clamp(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  std::optional<Scalar> lo = scalar_attr(in, "min");
  std::optional<Scalar> hi = scalar_attr(in, "max");
  if (!lo && !hi) {
    *error = "at least one of min and max must be given";
    return std::nullopt;
  }
  // The bounds take part in type promotion: clamp(int64 tensor, min=0.5) is float32.
  ResultType result;
  result.add(*x);
  if (lo) result.add(*lo);
  if (hi) result.add(*hi);
  return TensorType{*result.dtype(), x->shape};
}

// ** binary **

Result broadcast_promote(const InferInputs& in, std::string* error, size_t first, size_t count) {
  ResultType dtype;
  std::optional<Shape> shape;
  std::string names;
  for (size_t i = first; i < first + count; ++i) {
    names += (i == first ? "" : i + 1 == first + count ? " and " : ", ") + operand_name(in, i);
    if (const TensorType* t = in.type(i)) {
      dtype.add(*t);
      std::optional<Shape> broadcast = shape ? broadcast_shapes(*shape, t->shape) : t->shape;
      if (!broadcast) {
        *error = "shapes " + shape_to_string(*shape) + " and " + shape_to_string(t->shape) +
                 " cannot be broadcast";
        return std::nullopt;
      }
      shape = std::move(broadcast);
    } else if (i < in.scalars.size() && in.scalars[i]) {
      dtype.add(*in.scalars[i]);
    } else {
      *error = operand_name(in, i) + " must be a tensor or a number";
      return std::nullopt;
    }
  }
  if (!shape) {
    *error = "at least one of " + names + " must be a tensor";
    return std::nullopt;
  }
  return TensorType{*dtype.dtype(), std::move(*shape)};
}

namespace {

/// torch rejects a float alpha when the result is an integer (or bool) tensor.
bool check_alpha(const InferInputs& in, const TensorType& result, std::string* error) {
  std::optional<Scalar> alpha = scalar_attr(in, "alpha");
  if (alpha && !alpha->is_int && !is_floating(result.dtype)) {
    *error = "alpha must be an integer for a " + std::string(dtype_name(result.dtype)) +
             " result, got " + scalar_to_string(*alpha);
    return false;
  }
  return true;
}

}  // namespace

Result add(const InferInputs& in, std::string* error) {
  Result out = broadcast_promote(in, error);
  if (!out || !check_alpha(in, *out, error)) return std::nullopt;
  return out;
}

Result sub(const InferInputs& in, std::string* error) {
  for (size_t i = 0; i < 2; ++i) {
    if (const TensorType* t = in.type(i); t && t->dtype == DType::kBool) {
      *error = operand_name(in, i) + " has dtype bool; subtraction of masks is not supported "
               "(use logical_xor or logical_not)";
      return std::nullopt;
    }
  }
  return add(in, error);
}

Result mul(const InferInputs& in, std::string* error) { return broadcast_promote(in, error); }

Result div(const InferInputs& in, std::string* error) {
  Result out = broadcast_promote(in, error);
  if (!out) return std::nullopt;
  const AttrValue& mode = in.attr("rounding_mode");
  if (is_none(mode)) {
    // True division: integers divide into the default float dtype.
    if (!is_floating(out->dtype)) out->dtype = kDefaultFloat;
    return out;
  }
  const auto& name = std::get<std::string>(mode);
  if (name != "trunc" && name != "floor") {
    *error = "rounding_mode must be None, 'trunc' or 'floor', got '" + name + "'";
    return std::nullopt;
  }
  return out;
}

Result pow(const InferInputs& in, std::string* error) {
  Result out = broadcast_promote(in, error);
  if (!out) return std::nullopt;
  if (out->dtype == DType::kBool) {
    *error = "pow of bool tensors is not supported";
    return std::nullopt;
  }
  // torch checks a literal exponent up front; a tensor exponent is only known at run time.
  std::optional<Scalar> exponent = in.scalars.size() > 1 ? in.scalars[1] : std::nullopt;
  if (is_integral(out->dtype) && exponent && exponent->is_int && exponent->value < 0) {
    *error = "integers to negative integer powers are not allowed (exponent " +
             scalar_to_string(*exponent) + ")";
    return std::nullopt;
  }
  return out;
}

Result maximum_minimum(const InferInputs& in, std::string* error) {
  if (require_tensor(in, 0, error) == nullptr || require_tensor(in, 1, error) == nullptr) {
    return std::nullopt;
  }
  return broadcast_promote(in, error);
}

}  // namespace graft::shape_fns
