// Reference kernel of interpolate (nearest and bilinear over (N, C, H, W)), computing what
// torch 1.13's CPU kernels compute (aten/src/ATen/native/UpSample.h, UpSampleKernel.cpp):
// the same float coordinate arithmetic, the same copy where bilinear's out == in, and the
// same order of the weighted sums, so that results agree with torch's
// to the rounding of the last multiply-add. The work is O(output elements).
#include <cmath>

#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// One output coordinate's two source indices and weights along one dim.
struct Tap {
  int64_t i0 = 0, i1 = 0;
  float w0 = 1, w1 = 0;
};

/// torch's compute_scales_value: the given scale factor's inverse, else in / out, in float.
float scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<float>(1.0 / *scale)
                             : static_cast<float>(in) / static_cast<float>(out);
}

/// torch's nearest_neighbor_compute_source_index: floor(dst * scale), which is not the
/// half-pixel rule of other frameworks (torch's 'nearest-exact' is). torch's channels-last
/// kernel, which it also picks for a contiguous input with one channel, first copies when
/// out == in and halves when out == 2 * in; with a given scale factor that can differ by one
/// pixel, and graft follows the kernel of every other contiguous input.
std::vector<Tap> nearest_taps(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<Tap> taps(static_cast<size_t>(out));
  const float s = scale_value(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    taps[static_cast<size_t>(o)] = {i, i, 1, 0};
  }
  return taps;
}

/// torch's area_pixel_compute_scale and compute_source_index_and_lambda: align_corners maps
/// the corner pixels' centres onto each other; otherwise half-pixel centres, clamped at 0.
std::vector<Tap> linear_taps(int64_t in, int64_t out, std::optional<double> scale,
                             bool align_corners) {
  std::vector<Tap> taps(static_cast<size_t>(out));
  float s = 0;
  if (align_corners) {
    s = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  } else {
    s = scale_value(scale, in, out);
  }
  for (int64_t o = 0; o < out; ++o) {
    Tap& t = taps[static_cast<size_t>(o)];
    if (out == in) {
      t = {o, o, 1, 0};
      continue;
    }
    float src = align_corners ? s * static_cast<float>(o)
                              : s * (static_cast<float>(o) + 0.5f) - 0.5f;
    if (src < 0) src = 0;
    t.i0 = static_cast<int64_t>(src);
    t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
    t.w1 = std::min(std::max(src - static_cast<float>(t.i0), 0.f), 1.f);
    t.w0 = 1.f - t.w1;
  }
  return taps;
}

}  // namespace

bool interpolate(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  auto mode = call.str_attr("mode");
  const AttrValue* align = call.attr("align_corners");
  const AttrValue* scale_attr = call.attr("scale_factor");
  if (!x || !mode || !align || !scale_attr) return false;
  if (x->rank() != 4 || out.rank() != 4) return call.fail("interpolate needs a 4-d input");
  // The scale factors map coordinates only when they were given (not for `size`).
  std::optional<double> scale_h, scale_w;
  if (const auto* s = std::get_if<std::vector<double>>(scale_attr); s && !s->empty()) {
    scale_h = s->front();
    scale_w = s->back();
  }
  const int64_t h = x->shape()[2], w = x->shape()[3];
  const int64_t oh = out.shape()[2], ow = out.shape()[3];
  const bool bilinear = *mode == "bilinear";
  const bool corners = std::holds_alternative<bool>(*align) && std::get<bool>(*align);
  std::vector<Tap> ty = bilinear ? linear_taps(h, oh, scale_h, corners)
                                 : nearest_taps(h, oh, scale_h);
  std::vector<Tap> tx = bilinear ? linear_taps(w, ow, scale_w, corners)
                                 : nearest_taps(w, ow, scale_w);
  const int64_t planes = x->shape()[0] * x->shape()[1];
  for (int64_t p = 0; p < planes; ++p) {
    const float* src = x->f32() + p * h * w;
    float* dst = out.f32() + p * oh * ow;
    for (int64_t y = 0; y < oh; ++y) {
      const Tap& a = ty[static_cast<size_t>(y)];
      const float* r0 = src + a.i0 * w;
      const float* r1 = src + a.i1 * w;
      for (int64_t z = 0; z < ow; ++z) {
        const Tap& b = tx[static_cast<size_t>(z)];
        // torch's Interpolate<2>: the rows' sums first, each weighted by its row's weight.
        float top = r0[b.i0] * b.w0 + r0[b.i1] * b.w1;
        float bottom = r1[b.i0] * b.w0 + r1[b.i1] * b.w1;
        dst[y * ow + z] = bilinear ? top * a.w0 + bottom * a.w1 : r0[b.i0];
      }
    }
  }
  return true;
}

}  // namespace graft::eval::ref
