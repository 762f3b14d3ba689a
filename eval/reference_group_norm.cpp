// Reference kernel of group_norm, also the runtime's kernel (oneDNN 2.6 has no group
// normalization): each sample's channels split into num_groups groups, each group normalized
// by its own mean and biased variance with eps inside the square root, as torch's
// native_group_norm, then scaled and shifted per channel. The statistics are two passes in
// double, so an offset far larger than the spread (1000 + x) costs no precision.
#include <cmath>

#include "eval/reference_internal.h"

namespace graft::eval::ref {

bool group_norm(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  auto groups = call.int_attr("num_groups");
  auto eps = call.float_attr("eps");
  if (!x || !groups || !eps) return false;
  if (x->rank() < 2 || *groups < 1 || x->shape()[1] % *groups != 0) {
    return call.fail("group_norm needs an (N, C, *) input whose C num_groups divides");
  }
  const int64_t n = x->shape()[0], c = x->shape()[1];
  const int64_t per_group = c / *groups;
  const int64_t plane = c == 0 || n == 0 ? 0 : x->numel() / (n * c);  // elements per channel
  const int64_t count = per_group * plane;
  if (count == 0) return true;
  for (int64_t s = 0; s < n * *groups; ++s) {
    const float* src = x->f32() + s * count;
    float* dst = out.f32() + s * count;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < count; ++i) mean += src[i];
    mean /= static_cast<double>(count);
    for (int64_t i = 0; i < count; ++i) var += (src[i] - mean) * (src[i] - mean);
    var /= static_cast<double>(count);  // biased, as torch
    const double rstd = 1.0 / std::sqrt(var + *eps);
    for (int64_t j = 0; j < per_group; ++j) {
      const int64_t channel = s % *groups * per_group + j;
      const double scale = w ? rstd * w->f32()[channel] : rstd;
      const double shift = b ? b->f32()[channel] : 0.0;
      for (int64_t i = j * plane; i < (j + 1) * plane; ++i) {
        dst[i] = static_cast<float>((src[i] - mean) * scale + shift);
      }
    }
  }
  return true;
}

}  // namespace graft::eval::ref
