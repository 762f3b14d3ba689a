// Shape function of interpolate over (N, C, H, W), after torch 1.13's F.interpolate and
// UpSample.cpp (compute_output_size, upsample_2d_common_check): exactly one of size and
// scale_factor, an output size of trunc(in * scale) per spatial dim, every size positive.
#include <cmath>

#include "engine/ops/shape_fns.h"

namespace graft::shape_fns {
namespace {

/// One value per spatial dim; torch takes a bare number for both, but a list must have one
/// value per dim, and the IR cannot tell a number from a list of one (exporters write 2).
template <typename T>
std::optional<std::array<T, 2>> spatial_pair(const std::vector<T>& values, const char* name,
                                             const AttrValue& raw, std::string* error) {
  if (values.size() == 2) return std::array<T, 2>{values[0], values[1]};
  *error = std::string(name) + " must have 2 values (H, W), got " + attr_to_string(raw);
  return std::nullopt;
}

/// The output size of one spatial dim from its scale factor, as torch's compute_output_size:
/// the double product truncated. nullopt after setting `error` for a size below 1 or beyond
/// int64.
std::optional<int64_t> scaled_size(int64_t in, double scale, size_t dim, std::string* error) {
  if (!std::isfinite(scale) || scale <= 0) {
    *error = "scale_factor must be positive and finite, got " + attr_to_string(AttrValue{scale});
    return std::nullopt;
  }
  double out = static_cast<double>(in) * scale;
  if (out >= 0x1p62) {
    *error = "scale_factor " + attr_to_string(AttrValue{scale}) + " makes dim " +
             std::to_string(dim) + " of size " + std::to_string(in) + " too large";
    return std::nullopt;
  }
  if (out < 1) {
    *error = "scale_factor " + attr_to_string(AttrValue{scale}) + " makes dim " +
             std::to_string(dim) + " of size " + std::to_string(in) +
             " empty (output sizes must be positive)";
    return std::nullopt;
  }
  return static_cast<int64_t>(out);
}

}  // namespace

Result interpolate(const InferInputs& in, std::string* error) {
  const TensorType* x = require_tensor(in, 0, error);
  if (x == nullptr || !require_floating(in, 0, *x, error)) return std::nullopt;
  if (x->rank() != 4) {
    *error = "input has " + std::to_string(x->rank()) + " dims, expected 4 (N, C, H, W)";
    return std::nullopt;
  }
  for (size_t i = 1; i < 4; ++i) {
    if (x->shape[i] == 0) {
      *error = "input " + shape_to_string(x->shape) + " is empty in dim " + std::to_string(i) +
               " (only the batch dim may be 0)";
      return std::nullopt;
    }
  }
  const AttrValue& align = in.attr("align_corners");
  const auto* mode = std::get_if<std::string>(&in.attr("mode"));
  if (mode && *mode == "nearest" && !is_none(align)) {
    *error = "align_corners applies to mode 'bilinear' only, got align_corners=" +
             attr_to_string(align) + " with mode 'nearest'";
    return std::nullopt;
  }
  const AttrValue& size_attr = in.attr("size");
  const AttrValue& scale_attr = in.attr("scale_factor");
  if (is_none(size_attr) == is_none(scale_attr)) {
    *error = std::string("exactly one of size and scale_factor must be given, got ") +
             (is_none(size_attr) ? "neither" : "both");
    return std::nullopt;
  }
  Shape out = x->shape;
  if (const auto* sizes = std::get_if<std::vector<int64_t>>(&size_attr)) {
    auto size = spatial_pair(*sizes, "size", size_attr, error);
    if (!size) return std::nullopt;
    if ((*size)[0] < 1 || (*size)[1] < 1) {
      *error = "size must be positive, got " + attr_to_string(size_attr);
      return std::nullopt;
    }
    out[2] = (*size)[0];
    out[3] = (*size)[1];
    return TensorType{x->dtype, out};
  }
  const auto* scales = std::get_if<std::vector<double>>(&scale_attr);
  std::optional<std::array<double, 2>> scale;
  if (scales) scale = spatial_pair(*scales, "scale_factor", scale_attr, error);
  if (!scale) {
    if (!scales) *error = "scale_factor must be a list of floats";
    return std::nullopt;
  }
  for (size_t i = 0; i < 2; ++i) {
    if (!is_concrete(x->shape[2 + i])) {
      out[2 + i] = unknown_dim();
      continue;
    }
    std::optional<int64_t> size = scaled_size(x->shape[2 + i], (*scale)[i], 2 + i, error);
    if (!size) return std::nullopt;
    out[2 + i] = *size;
  }
  return TensorType{x->dtype, out};
}

}  // namespace graft::shape_fns
