// Reference kernel of conv1d and conv3d: one direct 3-D convolution, a 1-D one being a 3-D one
// over (1, 1, L). Accumulates in double as the conv2d reference does; the work is the output
// size times the kernel volume times the channels per group.
#include <array>

#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// Spatial sizes and attributes, padded in front to three dims with neutral values.
struct Dims3 {
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1}, pad{0, 0, 0}, dilation{1, 1, 1};
};

bool fill3(const Call& call, const std::string& name, size_t k,
           std::array<int64_t, 3>& slot) {
  auto v = call.ints_attr(name);
  if (!v) return false;
  if (v->size() != k) {
    return call.fail("attribute '" + name + "' needs " + std::to_string(k) + " values");
  }
  for (size_t i = 0; i < k; ++i) slot[3 - k + i] = (*v)[i];
  return true;
}

}  // namespace

bool conv_nd(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  auto groups = call.int_attr("groups");
  if (!x || !w || !groups) return call.fail("convolution needs an input and a weight");
  const auto k = static_cast<size_t>(w->rank() - 2);
  if (k != 1 && k != 3) return call.fail("conv1d / conv3d need a 3-d or 5-d weight");
  Dims3 d;
  if (!fill3(call, "stride", k, d.stride) || !fill3(call, "padding", k, d.pad) ||
      !fill3(call, "dilation", k, d.dilation)) {
    return false;
  }
  // An unbatched input (C, spatial...) is a batch of one.
  const bool batched = static_cast<size_t>(x->rank()) == k + 2;
  const int64_t n = batched ? x->shape()[0] : 1;
  const size_t c_dim = batched ? 1 : 0;
  const int64_t c = x->shape()[c_dim];
  const int64_t o = w->shape()[0], cg = w->shape()[1];
  if (cg * *groups != c) return call.fail("channels do not match groups");
  for (size_t i = 0; i < k; ++i) {
    d.in[3 - k + i] = x->shape()[c_dim + 1 + i];
    d.out[3 - k + i] = out.shape()[c_dim + 1 + i];
    d.kernel[3 - k + i] = w->shape()[2 + i];
  }
  const int64_t og = o / *groups;
  const int64_t in_plane = d.in[0] * d.in[1] * d.in[2];
  const int64_t out_plane = d.out[0] * d.out[1] * d.out[2];
  const int64_t k_volume = d.kernel[0] * d.kernel[1] * d.kernel[2];
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t g = oc / og;
      for (int64_t p = 0; p < out_plane; ++p) {
        const std::array<int64_t, 3> at = {p / (d.out[1] * d.out[2]), p / d.out[2] % d.out[1],
                                           p % d.out[2]};
        double acc = b ? b->f32()[oc] : 0.0;
        for (int64_t ic = 0; ic < cg; ++ic) {
          const float* src = x->f32() + (in * c + g * cg + ic) * in_plane;
          const float* wk = w->f32() + (oc * cg + ic) * k_volume;
          for (int64_t t = 0; t < k_volume; ++t) {
            const std::array<int64_t, 3> tap = {t / (d.kernel[1] * d.kernel[2]),
                                                t / d.kernel[2] % d.kernel[1], t % d.kernel[2]};
            int64_t offset = 0;
            bool inside = true;
            for (size_t j = 0; j < 3 && inside; ++j) {
              int64_t i = at[j] * d.stride[j] - d.pad[j] + tap[j] * d.dilation[j];
              inside = i >= 0 && i < d.in[j];
              offset = offset * d.in[j] + i;
            }
            if (inside) acc += static_cast<double>(src[offset]) * wk[t];
          }
        }
        out.f32()[(in * o + oc) * out_plane + p] = static_cast<float>(acc);
      }
    }
  return true;
}

}  // namespace graft::eval::ref
