// pad's shape function and torch's padding geometry (engine/ops/pad_geometry.h), after
// PadNd.cpp, ConstantPadNd, ReflectionPad.cpp, ReplicationPadding.cpp and _pad_circular in
// PyTorch 1.13. graft's pad takes any rank in every mode (torch's non-constant modes take 2 to
// 5 dims with 1 to 3 padded) and any dtype.
#include <algorithm>
#include <cmath>

#include "engine/ops/pad_geometry.h"
#include "engine/ops/shape_fns.h"

namespace graft {

std::optional<PadMode> parse_pad_mode(std::string_view mode) {
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "replicate") return PadMode::kReplicate;
  if (mode == "circular") return PadMode::kCircular;
  return std::nullopt;
}

std::vector<std::pair<int64_t, int64_t>> pads_per_dim(const std::vector<int64_t>& pad,
                                                      size_t rank) {
  std::vector<std::pair<int64_t, int64_t>> pads(rank, {0, 0});
  for (size_t i = 0; i + 1 < pad.size() && i / 2 < rank; i += 2) {
    pads[rank - 1 - i / 2] = {pad[i], pad[i + 1]};
  }
  return pads;
}

std::optional<int64_t> padded_size(PadMode mode, int64_t size, int64_t left, int64_t right,
                                   size_t dim, std::string* error) {
  const std::string where = " in dim " + std::to_string(dim) + " of size " + std::to_string(size);
  const std::string pads = "(" + std::to_string(left) + ", " + std::to_string(right) + ")";
  int64_t out = 0, crop_l = 0, crop_r = 0, crop = 0;
  if (__builtin_add_overflow(size, left, &out) || __builtin_add_overflow(out, right, &out) ||
      __builtin_sub_overflow(0, std::min<int64_t>(left, 0), &crop_l) ||
      __builtin_sub_overflow(0, std::min<int64_t>(right, 0), &crop_r) ||
      __builtin_add_overflow(crop_l, crop_r, &crop)) {
    *error = "padding " + pads + " overflows int64" + where;
    return std::nullopt;
  }
  switch (mode) {
    case PadMode::kConstant:
      if (crop > size) {
        *error = "padding " + pads + " crops more elements than there are" + where;
        return std::nullopt;
      }
      return out;
    case PadMode::kReflect:
      if (left >= size || right >= size) {
        *error = "reflect padding must be less than the dim's size, got " + pads + where;
        return std::nullopt;
      }
      break;
    case PadMode::kReplicate:
      if (size == 0) {
        *error = "replicate padding has nothing to repeat" + where;
        return std::nullopt;
      }
      break;
    case PadMode::kCircular:
      // torch checks against the input's size; where the other side crops, a pad beyond
      // what is left would wrap more than once too (torch then reads unset memory).
      if (crop > size || std::max(left, right) > size - crop) {
        *error = "circular padding " + pads + " wraps around more than once" + where;
        return std::nullopt;
      }
      return out;
  }
  if (out < 1) {
    *error = "padding " + pads + " leaves " + std::to_string(out) + " elements" + where + " (" +
             (mode == PadMode::kReflect ? "reflect" : "replicate") + " padding needs at least 1)";
    return std::nullopt;
  }
  return out;
}

namespace shape_fns {

Result pad(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr) return std::nullopt;
  const std::vector<int64_t>& pad = in.ints_attr("pad");
  const auto& mode_name = std::get<std::string>(in.attr("mode"));
  std::optional<PadMode> mode = parse_pad_mode(mode_name);
  if (!mode) {
    *error = "unknown padding mode '" + mode_name + "'";
    return std::nullopt;
  }
  if (pad.size() % 2 != 0) {
    *error = "pad " + ints_to_string(pad) + " has an odd number of values (it holds " +
             "(left, right) pairs)";
    return std::nullopt;
  }
  if (pad.size() / 2 > x->shape.size()) {
    *error = "pad " + ints_to_string(pad) + " pads " + std::to_string(pad.size() / 2) +
             " dims, but input has " + std::to_string(x->shape.size());
    return std::nullopt;
  }
  if (std::optional<Scalar> value = scalar_attr(in, "value")) {
    // torch lets value=0 through in every mode.
    if (*mode != PadMode::kConstant && value->value != 0) {
      *error = "padding mode '" + mode_name + "' takes no value";
      return std::nullopt;
    }
    if (!check_fill_value("value", *value, x->dtype, error)) return std::nullopt;
  }
  Shape out = x->shape;
  auto pads = pads_per_dim(pad, x->shape.size());
  for (size_t d = 0; d < out.size(); ++d) {
    auto [left, right] = pads[d];
    if (left == 0 && right == 0) continue;
    if (!is_concrete(out[d])) {
      out[d] = unknown_dim();
      continue;
    }
    std::optional<int64_t> size = padded_size(*mode, out[d], left, right, d, error);
    if (!size) return std::nullopt;
    out[d] = *size;
  }
  return TensorType{x->dtype, out};
}

}  // namespace shape_fns
}  // namespace graft
