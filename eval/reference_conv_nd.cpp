// Reference kernels of conv1d and conv3d, and of conv_transpose1d/2d/3d: one direct 3-D
// convolution and one direct 3-D transposed convolution, a 1-D or 2-D one being a 3-D one over
// (1, 1, L) or (1, H, W). Both accumulate each output element in double, as the conv2d
// reference does; the work is the output size times the kernel volume times the channels per
// group.
#include <array>
#include <optional>

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

/// The 3-d coordinates of flat index `i` in a row-major box of `dims`.
std::array<int64_t, 3> unravel(int64_t i, const std::array<int64_t, 3>& dims) {
  return {i / (dims[1] * dims[2]), i / dims[2] % dims[1], i % dims[2]};
}

/// The batch, channel dim and spatial geometry of a convolution whose weight has `k` spatial
/// dims, read from the call; an unbatched input (C, spatial...) is a batch of one.
struct Geometry {
  int64_t n = 1;
  size_t c_dim = 0;
  Dims3 d;
};

std::optional<Geometry> read_geometry(const Call& call, const Tensor& x, const Tensor& w,
                                      const Tensor& out) {
  const auto k = static_cast<size_t>(w.rank() - 2);
  Geometry g;
  if (!fill3(call, "stride", k, g.d.stride) || !fill3(call, "padding", k, g.d.pad) ||
      !fill3(call, "dilation", k, g.d.dilation)) {
    return std::nullopt;
  }
  const bool batched = static_cast<size_t>(x.rank()) == k + 2;
  g.n = batched ? x.shape()[0] : 1;
  g.c_dim = batched ? 1 : 0;
  for (size_t i = 0; i < k; ++i) {
    g.d.in[3 - k + i] = x.shape()[g.c_dim + 1 + i];
    g.d.out[3 - k + i] = out.shape()[g.c_dim + 1 + i];
    g.d.kernel[3 - k + i] = w.shape()[2 + i];
  }
  return g;
}

}  // namespace

bool conv_transpose(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  auto groups = call.int_attr("groups");
  if (!x || !w || !groups || *groups < 1) {
    return call.fail("transposed convolution needs an input, a weight and groups >= 1");
  }
  if (w->rank() < 3 || w->rank() > 5) return call.fail("conv_transpose needs a 3-d to 5-d weight");
  std::optional<Geometry> geo = read_geometry(call, *x, *w, out);
  if (!geo) return false;
  const Dims3& d = geo->d;
  const int64_t c = x->shape()[geo->c_dim];
  const int64_t cg = c / *groups, og = w->shape()[1];
  const int64_t o = og * *groups;
  if (cg * *groups != c || w->shape()[0] != c) return call.fail("channels do not match groups");
  const int64_t in_plane = d.in[0] * d.in[1] * d.in[2];
  const int64_t out_plane = d.out[0] * d.out[1] * d.out[2];
  const int64_t k_volume = d.kernel[0] * d.kernel[1] * d.kernel[2];
  // Output p takes input i through tap t where p = i * stride - pad + t * dilation.
  for (int64_t in = 0; in < geo->n; ++in)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t g = oc / og;
      for (int64_t p = 0; p < out_plane; ++p) {
        const std::array<int64_t, 3> at = unravel(p, d.out);
        double acc = b ? b->f32()[oc] : 0.0;
        for (int64_t t = 0; t < k_volume; ++t) {
          const std::array<int64_t, 3> tap = unravel(t, d.kernel);
          int64_t offset = 0;
          bool inside = true;
          for (size_t j = 0; j < 3 && inside; ++j) {
            const int64_t num = at[j] + d.pad[j] - tap[j] * d.dilation[j];
            const int64_t i = num / d.stride[j];
            inside = num >= 0 && num % d.stride[j] == 0 && i < d.in[j];
            offset = offset * d.in[j] + i;
          }
          if (!inside) continue;
          for (int64_t ic = 0; ic < cg; ++ic) {
            const int64_t channel = g * cg + ic;
            const float v = x->f32()[(in * c + channel) * in_plane + offset];
            acc += static_cast<double>(v) * w->f32()[(channel * og + oc % og) * k_volume + t];
          }
        }
        out.f32()[(in * o + oc) * out_plane + p] = static_cast<float>(acc);
      }
    }
  return true;
}

bool conv_nd(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  auto groups = call.int_attr("groups");
  if (!x || !w || !groups) return call.fail("convolution needs an input and a weight");
  const auto k = static_cast<size_t>(w->rank() - 2);
  if (k != 1 && k != 3) return call.fail("conv1d / conv3d need a 3-d or 5-d weight");
  std::optional<Geometry> geo = read_geometry(call, *x, *w, out);
  if (!geo) return false;
  const Dims3& d = geo->d;
  const int64_t n = geo->n;
  const int64_t c = x->shape()[geo->c_dim];
  const int64_t o = w->shape()[0], cg = w->shape()[1];
  if (cg * *groups != c) return call.fail("channels do not match groups");
  const int64_t og = o / *groups;
  const int64_t in_plane = d.in[0] * d.in[1] * d.in[2];
  const int64_t out_plane = d.out[0] * d.out[1] * d.out[2];
  const int64_t k_volume = d.kernel[0] * d.kernel[1] * d.kernel[2];
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t g = oc / og;
      for (int64_t p = 0; p < out_plane; ++p) {
        const std::array<int64_t, 3> at = unravel(p, d.out);
        double acc = b ? b->f32()[oc] : 0.0;
        for (int64_t ic = 0; ic < cg; ++ic) {
          const float* src = x->f32() + (in * c + g * cg + ic) * in_plane;
          const float* wk = w->f32() + (oc * cg + ic) * k_volume;
          for (int64_t t = 0; t < k_volume; ++t) {
            const std::array<int64_t, 3> tap = unravel(t, d.kernel);
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
