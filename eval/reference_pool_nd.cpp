// Reference kernels of pooling over 3 spatial dims (max_pool3d, avg_pool3d,
// adaptive_avg_pool3d), written for any number of spatial dims: the input is (…, *spatial),
// every leading dim a separate plane. They follow torch 1.13's CPU loops (DilatedMaxPool3d.cpp,
// AvgPool3d.cpp, AdaptiveAveragePooling3d.cpp): max propagates NaN; the averages sum in float
// in row-major window order, then divide, so that constant folding gives torch's bits.
#include <cmath>
#include <limits>

#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

using Dims = std::vector<int64_t>;

/// An attribute with one value per spatial dim (`fallback` when it is empty, as stride=[]).
std::optional<Dims> spatial_attr(const Call& call, const std::string& name, size_t n,
                                 const Dims& fallback = {}) {
  auto v = call.ints_attr(name);
  if (!v) return std::nullopt;
  if (v->empty() && !fallback.empty()) return fallback;
  if (v->size() != n) {
    call.fail("attribute '" + name + "' needs " + std::to_string(n) + " values");
    return std::nullopt;
  }
  return v;
}

/// Walks the boxes [lo, hi) of `n` dims in row-major order, calling f(offset) with the
/// element's offset for the row-major `extent`; `step` spaces the indices (dilation).
template <typename F>
void for_each_in_box(const Dims& lo, const Dims& hi, const Dims& step, const Dims& extent, F&& f) {
  const size_t n = lo.size();
  for (size_t d = 0; d < n; ++d) {
    if (lo[d] >= hi[d]) return;
  }
  Dims index = lo;
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d < n; ++d) offset = offset * extent[d] + index[d];
    f(offset);
    size_t d = n;
    while (d-- > 0) {
      index[d] += step[d];
      if (index[d] < hi[d]) break;
      index[d] = lo[d];
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

/// Calls f(plane, out_index, out_offset) for every output element of a pool over the last `n`
/// dims of `out`.
template <typename F>
void for_each_output(const Tensor& out, size_t n, F&& f) {
  const Shape& shape = out.shape();
  const Dims spatial(shape.end() - static_cast<std::ptrdiff_t>(n), shape.end());
  int64_t per_plane = 1;
  for (int64_t s : spatial) per_plane *= s;
  const int64_t planes = per_plane == 0 ? 0 : out.numel() / per_plane;
  Dims index(n, 0);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < per_plane; ++o) {
      int64_t rest = o;
      for (size_t d = n; d-- > 0;) {
        index[d] = rest % spatial[d];
        rest /= spatial[d];
      }
      f(p, index, p * per_plane + o);
    }
  }
}

}  // namespace

bool pool_nd(const Call& call, Tensor& out) {
  const bool is_max = call.node.target().starts_with("max_pool");
  const Tensor* x = call.tensor(0);
  auto k = call.ints_attr("kernel_size");
  if (!x || !k || k->empty() || x->shape().size() < k->size() + 1)
    return call.fail("bad pool input");
  const size_t n = k->size();
  auto s = spatial_attr(call, "stride", n, *k);
  auto p = spatial_attr(call, "padding", n);
  Dims dilation(n, 1);
  bool include_pad = true;
  std::optional<int64_t> divisor;
  if (!s || !p) return false;
  if (is_max) {
    auto d = spatial_attr(call, "dilation", n);
    if (!d) return false;
    dilation = *d;
  } else {
    auto inc = call.bool_attr("count_include_pad");
    if (!inc) return false;
    include_pad = *inc;
    if (const auto* v = std::get_if<int64_t>(call.attr("divisor_override"))) divisor = *v;
  }
  const Dims in(x->shape().end() - static_cast<std::ptrdiff_t>(n), x->shape().end());
  int64_t in_plane = 1;
  for (int64_t v : in) in_plane *= v;
  const Dims ones(n, 1);
  for_each_output(out, n, [&](int64_t plane, const Dims& o, int64_t at) {
    const float* src = x->f32() + plane * in_plane;
    Dims lo(n), hi(n);
    int64_t pool_size = 1;
    for (size_t d = 0; d < n; ++d) {
      lo[d] = o[d] * (*s)[d] - (*p)[d];
      if (is_max) {
        hi[d] = std::min(lo[d] + ((*k)[d] - 1) * dilation[d] + 1, in[d]);
        while (lo[d] < 0) lo[d] += dilation[d];
      } else {
        // torch: the window is clipped to the padded input for count_include_pad, and to
        // the input itself for the element count.
        hi[d] = std::min(lo[d] + (*k)[d], in[d] + (*p)[d]);
        pool_size *= hi[d] - lo[d];
        lo[d] = std::max<int64_t>(lo[d], 0);
        hi[d] = std::min(hi[d], in[d]);
      }
    }
    if (is_max) {
      float best = -std::numeric_limits<float>::infinity();
      for_each_in_box(lo, hi, dilation, in,
                      [&](int64_t i) { best = max_propagating_nan(best, src[i]); });
      out.f32()[at] = best;
      return;
    }
    float sum = 0;
    int64_t count = 0;
    for_each_in_box(lo, hi, ones, in, [&](int64_t i) {
      sum += src[i];
      ++count;
    });
    int64_t div = divisor ? *divisor : include_pad ? pool_size : count;
    out.f32()[at] = sum / static_cast<float>(div);
  });
  return true;
}

bool adaptive_pool_nd(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  auto size = call.ints_attr("output_size");
  if (!x || !size || size->empty() || x->shape().size() < size->size() + 1) {
    return call.fail("bad adaptive pool input");
  }
  const size_t n = size->size();
  const Dims in(x->shape().end() - static_cast<std::ptrdiff_t>(n), x->shape().end());
  int64_t in_plane = 1;
  for (int64_t v : in) in_plane *= v;
  const Dims ones(n, 1);
  for_each_output(out, n, [&](int64_t plane, const Dims& o, int64_t at) {
    Dims lo(n), hi(n);
    int64_t count = 1;
    for (size_t d = 0; d < n; ++d) {
      // torch: [floor(i * in / out), ceil((i + 1) * in / out))
      lo[d] = o[d] * in[d] / (*size)[d];
      hi[d] = ((o[d] + 1) * in[d] + (*size)[d] - 1) / (*size)[d];
      count *= hi[d] - lo[d];
    }
    const float* src = x->f32() + plane * in_plane;
    float sum = 0;
    for_each_in_box(lo, hi, ones, in, [&](int64_t i) { sum += src[i]; });
    out.f32()[at] = sum / static_cast<float>(count);
  });
  return true;
}

}  // namespace graft::eval::ref
