// Reference kernel of scaled_dot_product_attention, as torch 2.1 documents it: per query row,
// the scores q·k_j * scale (plus a float mask, or mask_fill where a bool mask is false or a
// causal mask hides key j > i), softmax over the keys, and the weighted sum of the value rows.
// Batch dims broadcast as torch.matmul's; the scores are rounded to float32 as torch's are, the
// sums are in double. A row whose keys are all masked is NaN with the default fill of -inf, as
// torch's softmax of all -inf, and the average of its value rows with a finite fill.
#include <cmath>
#include <limits>

#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

bool float32(const Tensor* t) { return t == nullptr || t->dtype() == DType::kFloat32; }

}  // namespace

bool attention(const Call& call, Tensor& out) {
  const Tensor* q = call.tensor(0);
  const Tensor* k = call.tensor(1);
  const Tensor* v = call.tensor(2);
  const Tensor* mask = call.tensor(3);
  auto dropout = call.float_attr("dropout_p");
  auto causal = call.bool_attr("is_causal");
  auto mask_fill = call.float_attr("mask_fill");
  if (!q || !k || !v || !dropout || !causal || !mask_fill) return false;
  if (!float32(q) || !float32(k) || !float32(v) || out.dtype() != DType::kFloat32 ||
      (mask && mask->dtype() != DType::kBool && mask->dtype() != DType::kFloat32)) {
    return call.fail("scaled_dot_product_attention computes float32 with a bool or float32 mask");
  }
  if (*dropout != 0) return call.fail("dropout_p > 0 drops at random");
  const int64_t e = q->shape().back(), ev = v->shape().back();
  const int64_t l = q->shape()[q->rank() - 2], s = k->shape()[k->rank() - 2];
  const AttrValue* scale_attr = call.attr("scale");
  if (!scale_attr) return false;
  const double scale = std::holds_alternative<double>(*scale_attr)
                           ? std::get<double>(*scale_attr)
                           : 1.0 / std::sqrt(static_cast<double>(e));
  // The scores' shape [batch…, L, S] indexes every operand: q and k through their (…, L, E) and
  // (…, S, E) strides, the mask directly, v and out per batch element.
  const size_t rank = out.rank();
  Shape batch(out.shape().begin(), out.shape().end() - 2);
  const std::vector<int64_t> sq = graft::broadcast_strides(q->shape(), rank);
  const std::vector<int64_t> sk = graft::broadcast_strides(k->shape(), rank);
  const std::vector<int64_t> sv = graft::broadcast_strides(v->shape(), rank);
  const std::vector<int64_t> sm =
      mask ? graft::broadcast_strides(mask->shape(), rank) : std::vector<int64_t>(rank);
  std::vector<int64_t> bstr = strides_of(batch);
  int64_t batches = 1;
  for (Dim d : batch) batches *= d;
  std::vector<double> p(static_cast<size_t>(s));
  const double inf = std::numeric_limits<double>::infinity();
  // masked_fill writes the fill into the float32 scores: rounded to float32 first (a fill
  // beyond float32's range, which torch refuses, is an infinity).
  const double fill = std::abs(*mask_fill) > std::numeric_limits<float>::max()
                          ? std::copysign(inf, *mask_fill)
                          : static_cast<float>(*mask_fill);
  for (int64_t t = 0; t < batches; ++t) {
    int64_t qo = 0, ko = 0, vo = 0, mo = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      int64_t index = t / bstr[d] % batch[d];
      qo += index * sq[d], ko += index * sk[d], vo += index * sv[d], mo += index * sm[d];
    }
    for (int64_t i = 0; i < l; ++i) {
      double top = -inf;
      for (int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < e; ++c) {
          dot += static_cast<double>(q->f32()[qo + i * sq[rank - 2] + c * sq[rank - 1]]) *
                 k->f32()[ko + j * sk[rank - 2] + c * sk[rank - 1]];
        }
        // The scores are float32 tensors in torch's definition: rounded, then scaled in float.
        double score = static_cast<float>(static_cast<float>(dot) * static_cast<float>(scale));
        int64_t at = mo + i * sm[rank - 2] + j * sm[rank - 1];
        if (*causal && j > i) score = fill;
        if (mask && mask->dtype() == DType::kBool && mask->b8()[at] == 0) score = fill;
        if (mask && mask->dtype() == DType::kFloat32) {
          score = static_cast<float>(static_cast<float>(score) + mask->f32()[at]);
        }
        p[static_cast<size_t>(j)] = score;
        top = max_propagating_nan(top, score);
      }
      double sum = 0;
      for (double& x : p) sum += (x = std::exp(x - top));  // all -inf: exp(NaN), as torch
      for (int64_t c = 0; c < ev; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < s; ++j) {
          acc += p[static_cast<size_t>(j)] * v->f32()[vo + j * sv[rank - 2] + c * sv[rank - 1]];
        }
        out.f32()[(t * l + i) * ev + c] = static_cast<float>(acc / sum);
      }
    }
  }
  return true;
}

}  // namespace graft::eval::ref
