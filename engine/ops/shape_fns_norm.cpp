// Shape functions of the normalizations (batch_norm, layer_norm, group_norm) and softmax: the
// result has the input's shape; the checks are on the parameters' shapes, after torch's
// Normalization.cpp, layer_norm.cpp and group_norm.cpp.
#include "engine/ops/shape_fns.h"

namespace graft::shape_fns {
namespace {

/// The input of a per-channel normalization: a floating tensor (N, C, …); nullptr after
/// setting `error`.
const TensorType* channel_input(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return nullptr;
  if (x->rank() < 2) {
    *error = "input has " + std::to_string(x->rank()) +
             " dims, expected at least 2 (N, C, …): channels are dim 1";
    return nullptr;
  }
  return x;
}

/// False after setting `error` unless operands `first`..`last`, where given, are [C].
bool channel_vectors(const InferInputs& in, size_t first, size_t last, Dim channels,
                     std::string* error) {
  for (size_t i = first; i <= last; ++i) {
    const TensorType* p = in.type(i);
    if (p == nullptr) continue;
    if (p->rank() != 1 || (is_concrete(p->shape[0]) && is_concrete(channels) &&
                           p->shape[0] != channels)) {
      *error = operand_name(in, i) + " has shape " + shape_to_string(p->shape) + ", expected [" +
               dim_to_string(channels) + "] (the input's channels, dim 1)";
      return false;
    }
  }
  return true;
}

}  // namespace

Result batch_norm(const InferInputs& in, std::string* error) {
  const TensorType* x = channel_input(in, error);
  if (x == nullptr) return std::nullopt;
  Dim channels = x->shape[1];
  // Operands 1-4: running_mean, running_var, weight, bias, each [C] when given.
  if (!channel_vectors(in, 1, 4, channels, error)) return std::nullopt;
  if (!in.bool_attr("training")) {
    if (in.type(1) == nullptr || in.type(2) == nullptr) {
      *error = "running_mean and running_var are required when training=False";
      return std::nullopt;
    }
  } else {
    // Training normalizes with batch statistics, which need more than one value per channel.
    Shape per_channel = x->shape;
    per_channel.erase(per_channel.begin() + 1);
    if (element_count(per_channel) == 1) {
      *error = "training=True needs more than 1 value per channel, input is " +
               shape_to_string(x->shape);
      return std::nullopt;
    }
  }
  return *x;
}

Result layer_norm(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  const std::vector<int64_t>& normalized = in.ints_attr("normalized_shape");
  if (normalized.empty()) {
    *error = "normalized_shape must have at least one dim";
    return std::nullopt;
  }
  // normalized_shape names the trailing dims of the input.
  bool matches = normalized.size() <= x->shape.size();
  size_t offset = x->shape.size() - normalized.size();
  for (size_t i = 0; matches && i < normalized.size(); ++i) {
    Dim d = x->shape[offset + i];
    if (normalized[i] < 0 || (is_concrete(d) && d != normalized[i])) matches = false;
  }
  if (!matches) {
    *error = "normalized_shape " + ints_to_string(normalized) + " does not match the last " +
             std::to_string(normalized.size()) + " dims of the input " + shape_to_string(x->shape);
    return std::nullopt;
  }
  for (size_t i = 1; i <= 2; ++i) {
    const TensorType* p = in.type(i);
    if (p == nullptr) continue;
    bool same = p->shape.size() == normalized.size();
    for (size_t j = 0; same && j < normalized.size(); ++j) {
      if (is_concrete(p->shape[j]) && p->shape[j] != normalized[j]) same = false;
    }
    if (!same) {
      *error = operand_name(in, i) + " has shape " + shape_to_string(p->shape) +
               ", expected normalized_shape " + ints_to_string(normalized);
      return std::nullopt;
    }
  }
  return *x;
}

Result group_norm(const InferInputs& in, std::string* error) {
  const TensorType* x = channel_input(in, error);
  if (x == nullptr) return std::nullopt;
  const int64_t groups = in.int_attr("num_groups");
  const Dim channels = x->shape[1];
  if (groups < 1) {
    *error = "num_groups must be positive, got " + std::to_string(groups);
    return std::nullopt;
  }
  if (is_concrete(channels) && channels % groups != 0) {
    *error = "num_groups=" + std::to_string(groups) + " does not divide the input's " +
             std::to_string(channels) + " channels (dim 1 of " + shape_to_string(x->shape) + ")";
    return std::nullopt;
  }
  // Operands 1-2: weight, bias, each [C] when given.
  if (!channel_vectors(in, 1, 2, channels, error)) return std::nullopt;
  return *x;
}

Result softmax(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  if (!wrap_dim(in.int_attr("dim"), x->rank(), error)) return std::nullopt;
  return *x;
}

}  // namespace graft::shape_fns
