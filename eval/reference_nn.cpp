// Reference kernels, part 2: convolution, matrix products, normalization, pooling, reductions,
// and softmax, as direct loops with double accumulation. Each follows torch's definition
// (the formulas are those of the torch.nn.functional docs); output shapes come from shape
// inference, so these loops only compute values.
#include <cmath>
#include <limits>

#include "engine/ops/matmul_shapes.h"
#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// Two ints from an `int[2]`-style attribute (a single value is repeated).
std::optional<std::pair<int64_t, int64_t>> pair_attr(const Call& call, const std::string& name,
                                                    std::optional<std::pair<int64_t, int64_t>> fallback = {}) {
  auto v = call.ints_attr(name);
  if (!v) return std::nullopt;
  if (v->empty() && fallback) return fallback;
  if (v->size() == 1) return std::make_pair((*v)[0], (*v)[0]);
  if (v->size() != 2) {
    call.fail("attribute '" + name + "' needs two values");
    return std::nullopt;
  }
  return std::make_pair((*v)[0], (*v)[1]);
}

/// Applies the fused ops' activation / residual / post-activation epilogue in place.
bool epilogue(const Call& call, Tensor& out) {
  auto act = call.str_attr("activation");
  auto alpha = call.float_attr("alpha");
  auto beta = call.float_attr("beta");
  auto post = call.str_attr("post_activation");
  auto post_alpha = call.float_attr("post_alpha");
  auto post_beta = call.float_attr("post_beta");
  if (!act || !alpha || !beta || !post || !post_alpha || !post_beta) return false;
  const Tensor* residual = call.tensor(3);
  if (residual && residual->shape() != out.shape()) return call.fail("residual shape differs");
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto v = activate(*act, *alpha, *beta, out.f32()[i]);
    if (!v) return call.fail("unknown activation '" + *act + "'");
    float y = *v + (residual ? residual->f32()[i] : 0.0f);
    auto w = activate(*post, *post_alpha, *post_beta, y);
    if (!w) return call.fail("unknown activation '" + *post + "'");
    out.f32()[i] = *w;
  }
  return true;
}

}  // namespace

bool conv2d(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  auto stride = pair_attr(call, "stride");
  auto pad = pair_attr(call, "padding");
  auto dil = pair_attr(call, "dilation");
  auto groups = call.int_attr("groups");
  if (!stride || !pad || !dil || !groups) return false;
  if (!x || !w || x->rank() != 4 || w->rank() != 4) return call.fail("conv2d needs 4-d tensors");
  const int64_t n = x->shape()[0], c = x->shape()[1], h = x->shape()[2], wd = x->shape()[3];
  const int64_t o = w->shape()[0], cg = w->shape()[1], kh = w->shape()[2], kw = w->shape()[3];
  const int64_t oh = out.shape()[2], ow = out.shape()[3];
  const int64_t og = o / *groups;
  if (cg * *groups != c) return call.fail("channels do not match groups");
  const float* xp = x->f32();
  const float* wp = w->f32();
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < o; ++oc) {
      int64_t g = oc / og;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double acc = b ? b->f32()[oc] : 0.0;
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t i = 0; i < kh; ++i) {
              int64_t iy = y * stride->first - pad->first + i * dil->first;
              if (iy < 0 || iy >= h) continue;
              for (int64_t j = 0; j < kw; ++j) {
                int64_t iz = z * stride->second - pad->second + j * dil->second;
                if (iz < 0 || iz >= wd) continue;
                acc += static_cast<double>(xp[((in * c + g * cg + ic) * h + iy) * wd + iz]) *
                       wp[((oc * cg + ic) * kh + i) * kw + j];
              }
            }
          out.f32()[((in * o + oc) * oh + y) * ow + z] = static_cast<float>(acc);
        }
    }
  return true;
}

bool conv2d_post(const Call& call, Tensor& out) { return conv2d(call, out) && epilogue(call, out); }

bool linear(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  if (!x || !w || w->rank() != 2) return call.fail("linear needs a tensor and a 2-d weight");
  const int64_t k = w->shape()[1], o = w->shape()[0];
  const int64_t rows = k == 0 ? out.numel() / std::max<int64_t>(o, 1) : x->numel() / k;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < o; ++j) {
      double acc = b ? b->f32()[j] : 0.0;
      for (int64_t i = 0; i < k; ++i) {
        acc += static_cast<double>(x->f32()[r * k + i]) * w->f32()[j * k + i];
      }
      out.f32()[r * o + j] = static_cast<float>(acc);
    }
  return true;
}

bool linear_post(const Call& call, Tensor& out) { return linear(call, out) && epilogue(call, out); }

bool matmul(const Call& call, Tensor& out) {
  const Tensor* a = call.tensor(0);
  const Tensor* b = call.tensor(1);
  if (!a || !b || a->rank() == 0 || b->rank() == 0) return call.fail("matmul needs tensors");
  // torch.matmul: a 1-d left operand is [1, K], a 1-d right one [K, 1]; batch dims broadcast.
  const MatmulShapes shapes = *promote_matmul(a->shape(), b->shape());
  const Shape& as = shapes.a;
  const Shape& bs = shapes.b;
  const size_t rank = as.size();
  const int64_t m = as[rank - 2], k = as[rank - 1], n = bs[rank - 1];
  const Shape batch(shapes.out.begin(), shapes.out.end() - 2);
  std::vector<int64_t> bstr = strides_of(batch);
  int64_t batches = 1;
  for (Dim d : batch) batches *= d;
  for (int64_t t = 0; t < batches; ++t) {
    int64_t ao = 0, bo = 0, a_mul = m * k, b_mul = k * n;
    // Offsets of this batch element in a and b (broadcast dims of size 1 stay at 0).
    for (size_t d = batch.size(); d-- > 0;) {
      int64_t index = t / bstr[d] % batch[d];
      if (as[d] != 1) ao += index * a_mul;
      if (bs[d] != 1) bo += index * b_mul;
      a_mul *= as[d];
      b_mul *= bs[d];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += static_cast<double>(a->f32()[ao + i * k + p]) * b->f32()[bo + p * n + j];
        }
        out.f32()[(t * m + i) * n + j] = static_cast<float>(acc);
      }
  }
  return true;
}

bool batch_norm(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* mean = call.tensor(1);
  const Tensor* var = call.tensor(2);
  const Tensor* w = call.tensor(3);
  const Tensor* b = call.tensor(4);
  auto eps = call.float_attr("eps");
  auto training = call.bool_attr("training");
  if (!eps || !training) return false;
  if (*training || !mean || !var) return call.fail("only inference with running statistics");
  if (!x || x->rank() < 2) return call.fail("batch_norm needs an input of rank >= 2");
  const int64_t c = x->shape()[1];
  int64_t inner = 1;
  for (size_t d = 2; d < x->shape().size(); ++d) inner *= x->shape()[d];
  for (int64_t i = 0; i < x->numel(); ++i) {
    int64_t ch = i / inner % c;
    double v = (x->f32()[i] - mean->f32()[ch]) / std::sqrt(var->f32()[ch] + *eps);
    if (w) v *= w->f32()[ch];
    if (b) v += b->f32()[ch];
    out.f32()[i] = static_cast<float>(v);
  }
  return true;
}

bool layer_norm(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  const Tensor* w = call.tensor(1);
  const Tensor* b = call.tensor(2);
  auto normalized = call.ints_attr("normalized_shape");
  auto eps = call.float_attr("eps");
  if (!normalized || !eps || !x) return false;
  int64_t inner = 1;
  for (int64_t d : *normalized) inner *= d;
  if (inner == 0) return true;
  for (int64_t r = 0; r < x->numel() / inner; ++r) {
    const float* row = x->f32() + r * inner;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < inner; ++i) mean += row[i];
    mean /= static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= static_cast<double>(inner);  // biased, as torch
    for (int64_t i = 0; i < inner; ++i) {
      double v = (row[i] - mean) / std::sqrt(var + *eps);
      if (w) v *= w->f32()[i];
      if (b) v += b->f32()[i];
      out.f32()[r * inner + i] = static_cast<float>(v);
    }
  }
  return true;
}

bool pool2d(const Call& call, Tensor& out) {
  const bool is_max = call.node.target() == "max_pool2d";
  const Tensor* x = call.tensor(0);
  auto k = pair_attr(call, "kernel_size");
  if (!k) return false;
  auto s = pair_attr(call, "stride", k);
  auto p = pair_attr(call, "padding");
  if (!s || !p || !x || x->rank() != 4) return call.fail("pooling needs a 4-d input");
  std::pair<int64_t, int64_t> d = {1, 1};
  bool include_pad = true;
  std::optional<int64_t> divisor;
  if (is_max) {
    auto dil = pair_attr(call, "dilation");
    if (!dil) return false;
    d = *dil;
  } else {
    auto inc = call.bool_attr("count_include_pad");
    if (!inc) return false;
    include_pad = *inc;
    if (call.node.schema()->attr_index("divisor_override") >= 0) {
      const AttrValue* v = call.attr("divisor_override");
      if (const auto* i = std::get_if<int64_t>(v)) divisor = *i;
    }
  }
  const int64_t planes = x->shape()[0] * x->shape()[1];
  const int64_t h = x->shape()[2], w = x->shape()[3];
  const int64_t oh = out.shape()[2], ow = out.shape()[3];
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        const float* plane = x->f32() + pl * h * w;
        float& o = out.f32()[(pl * oh + y) * ow + z];
        int64_t y0 = y * s->first - p->first, z0 = z * s->second - p->second;
        if (is_max) {
          float best = -std::numeric_limits<float>::infinity();
          for (int64_t i = 0; i < k->first; ++i)
            for (int64_t j = 0; j < k->second; ++j) {
              int64_t iy = y0 + i * d.first, iz = z0 + j * d.second;
              if (iy >= 0 && iy < h && iz >= 0 && iz < w) {
                best = max_propagating_nan(best, plane[iy * w + iz]);
              }
            }
          o = best;
          continue;
        }
        // torch: the window is clipped to the padded input for count_include_pad, and to
        // the input itself for the element count.
        int64_t y1 = std::min(y0 + k->first, h + p->first), z1 = std::min(z0 + k->second, w + p->second);
        int64_t pool_size = (y1 - y0) * (z1 - z0);
        y0 = std::max<int64_t>(y0, 0);
        z0 = std::max<int64_t>(z0, 0);
        y1 = std::min(y1, h);
        z1 = std::min(z1, w);
        double sum = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t iz = z0; iz < z1; ++iz) sum += plane[iy * w + iz];
        int64_t div = divisor ? *divisor : include_pad ? pool_size : (y1 - y0) * (z1 - z0);
        o = static_cast<float>(sum / static_cast<double>(div));
      }
  return true;
}

bool adaptive_pool2d(const Call& call, Tensor& out) {
  const bool is_max = call.node.target() == "adaptive_max_pool2d";
  const Tensor* x = call.tensor(0);
  if (!x || x->rank() != 4) return call.fail("adaptive pooling needs a 4-d input");
  const int64_t planes = x->shape()[0] * x->shape()[1];
  const int64_t h = x->shape()[2], w = x->shape()[3];
  const int64_t oh = out.shape()[2], ow = out.shape()[3];
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        // torch: [floor(i * in / out), ceil((i + 1) * in / out))
        int64_t y0 = y * h / oh, y1 = ((y + 1) * h + oh - 1) / oh;
        int64_t z0 = z * w / ow, z1 = ((z + 1) * w + ow - 1) / ow;
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t iz = z0; iz < z1; ++iz) {
            double v = x->f32()[(pl * h + iy) * w + iz];
            acc = is_max ? max_propagating_nan(acc, v) : acc + v;
          }
        if (!is_max) acc /= static_cast<double>((y1 - y0) * (z1 - z0));
        out.f32()[(pl * oh + y) * ow + z] = static_cast<float>(acc);
      }
  return true;
}

bool reduce(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  auto dims = call.ints_attr("dim");
  if (!dims || !x) return false;
  const auto rank = static_cast<int64_t>(x->shape().size());
  std::vector<bool> reduced(static_cast<size_t>(rank), dims->empty());
  for (int64_t dim : *dims) reduced[static_cast<size_t>(dim < 0 ? dim + rank : dim)] = true;
  // Accumulate every input element into its kept-dims position.
  Shape kept = x->shape();
  int64_t count = 1;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (reduced[i]) {
      count *= kept[i];
      kept[i] = 1;
    }
  }
  std::vector<int64_t> in_strides = strides_of(x->shape());
  std::vector<int64_t> kept_strides = strides_of(kept);
  const bool max = call.node.target() == "amax";
  const bool min = call.node.target() == "amin";
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> acc(static_cast<size_t>(out.numel()), max ? -inf : min ? inf : 0.0);
  for (int64_t i = 0; i < x->numel(); ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < kept.size(); ++d) {
      if (!reduced[d]) o += i / in_strides[d] % x->shape()[d] * kept_strides[d];
    }
    double& a = acc[static_cast<size_t>(o)];
    double v = x->f32()[i];
    if (max) {
      a = max_propagating_nan(a, v);
    } else if (min) {
      a = min_propagating_nan(a, v);
    } else {
      a += v;
    }
  }
  const bool mean = call.node.target() == "mean";
  for (int64_t i = 0; i < out.numel(); ++i) {
    double v = acc[static_cast<size_t>(i)];
    out.f32()[i] = static_cast<float>(mean ? v / static_cast<double>(count) : v);
  }
  return true;
}

bool softmax(const Call& call, Tensor& out) {
  const Tensor* x = call.tensor(0);
  auto dim = call.int_attr("dim");
  if (!dim || !x) return false;
  const auto rank = static_cast<int64_t>(x->shape().size());
  // A 0-d tensor has one element along its one dim (-1 or 0), as in torch and the runtime.
  const int64_t axis = *dim < 0 ? *dim + std::max<int64_t>(rank, 1) : *dim;
  int64_t outer = 1, n = rank == 0 ? 1 : x->shape()[static_cast<size_t>(axis)], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x->shape()[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x->shape()[static_cast<size_t>(d)];
  const bool log = call.node.target() == "log_softmax";
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < n; ++j) mx = std::max<double>(mx, x->f32()[at(j)]);
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += std::exp(x->f32()[at(j)] - mx);
      for (int64_t j = 0; j < n; ++j) {
        double v = x->f32()[at(j)] - mx;
        out.f32()[at(j)] = static_cast<float>(log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  return true;
}

}  // namespace graft::eval::ref
