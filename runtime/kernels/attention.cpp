// scaled_dot_product_attention in one pass over the keys: per (batch, block of query rows),
// the scores of one block of keys at a time (oneDNN's sgemm), masked, folded into a running
// softmax (the row's maximum and sum so far rescale what is accumulated) and multiplied into
// the output rows (sgemm again). The L x S score matrix never exists beyond one block, so
// memory traffic stays linear in the sequence; a causal mask (is_causal, or a constant mask of
// that pattern) skips the key blocks it hides, unless a finite mask_fill would give them weight.
// Blocks run in parallel on the OpenMP threads the runtime was given; each has its own slice
// of the shared scratchpad. q, k and v may be strided views (the heads of a packed qkv
// projection, split and transposed), and the output is written in the layout its users'
// common transpose makes dense, so the head split and merge around attention copy nothing.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/kernels/families.h"
#include "runtime/strided_view.h"

namespace graft::runtime {
namespace {

constexpr int64_t kRowBlock = 256;  // at most this many query rows per work item
// Causal: smaller row blocks, so that each skips the keys after its last row (at 64, a
// 128-row head computes 3/4 of its scores instead of all of them).
constexpr int64_t kCausalRowBlock = 64;
constexpr int64_t kKeyBlock = 256;  // keys per score block (256 x 256 floats: 256 KiB)

constexpr int64_t kLanes = 16;  // independent partial results: a vector register's floats

/// The largest of row[0 .. n), ignoring NaN; -inf when n is 0. Lane-parallel so that each ISA
/// variant below vectorises it.
[[gnu::always_inline]] inline float row_max_body(const float* row, int64_t n) {
  float lanes[kLanes];
  std::fill(lanes, lanes + kLanes, -std::numeric_limits<float>::infinity());
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t u = 0; u < kLanes; ++u) lanes[u] = row[j + u] > lanes[u] ? row[j + u] : lanes[u];
  }
  for (; j < n; ++j) lanes[0] = row[j] > lanes[0] ? row[j] : lanes[0];
  float top = lanes[0];
  for (int64_t u = 1; u < kLanes; ++u) top = lanes[u] > top ? lanes[u] : top;
  return top;
}

/// row[j] = exp(row[j] - shift) for j < n, returning their sum. exp by range reduction to
/// [-ln2/2, ln2/2] and Cephes' expf polynomial (about 1 ulp); -inf gives exactly 0 and NaN stays
/// NaN. Written without library calls so that each ISA variant below vectorises it.
[[gnu::always_inline]] inline float exp_shifted_sum_body(float* row, int64_t n, float shift) {
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  for (int64_t j = 0; j < n; ++j) {
    const float x = row[j] - shift;
    float c = x < -87.0f ? -87.0f : x;
    c = c > 88.0f ? 88.0f : c;
    c = c != c ? 0.0f : c;  // NaN: its result is replaced below; converting NaN to int is UB
    const float k = (c * 1.44269504088896341f + kRound) - kRound;
    const float r = (c - k * 0.693359375f) + k * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t bits;
    std::memcpy(&bits, &p, sizeof bits);
    bits += static_cast<int32_t>(k) * (1 << 23);
    float e;
    std::memcpy(&e, &bits, sizeof e);
    e = x < -87.0f ? 0.0f : e;
    row[j] = x != x ? x : e;
  }
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t u = 0; u < kLanes; ++u) lanes[u] += row[j + u];
  }
  for (; j < n; ++j) lanes[0] += row[j];
  float sum = 0;
  for (float part : lanes) sum += part;
  return sum;
}

// The two loops compiled for AVX-512, AVX2 + FMA and the baseline, picked once by the CPU
// (a plain call, not an ifunc: resolvers run before the sanitizers' runtime is set up).
__attribute__((target("avx512f"))) float row_max_avx512(const float* row, int64_t n) {
  return row_max_body(row, n);
}
__attribute__((target("avx2,fma"))) float row_max_avx2(const float* row, int64_t n) {
  return row_max_body(row, n);
}
float row_max_baseline(const float* row, int64_t n) { return row_max_body(row, n); }
__attribute__((target("avx512f"))) float exp_shifted_sum_avx512(float* row, int64_t n, float s) {
  return exp_shifted_sum_body(row, n, s);
}
__attribute__((target("avx2,fma"))) float exp_shifted_sum_avx2(float* row, int64_t n, float s) {
  return exp_shifted_sum_body(row, n, s);
}
float exp_shifted_sum_baseline(float* row, int64_t n, float s) {
  return exp_shifted_sum_body(row, n, s);
}

struct RowKernels {
  float (*max)(const float*, int64_t);
  float (*exp_sum)(float*, int64_t, float);
};

const RowKernels& row_kernels() {
  static const RowKernels kernels = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return RowKernels{row_max_avx512, exp_shifted_sum_avx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return RowKernels{row_max_avx2, exp_shifted_sum_avx2};
    }
    return RowKernels{row_max_baseline, exp_shifted_sum_baseline};
  }();
  return kernels;
}

enum class MaskKind { kNone, kBool, kFloat };

struct AttentionGeometry {
  Shape batch;                         // the output's batch dims
  int64_t l = 0, s = 0, e = 0, ev = 0;
  float scale = 1;
  float fill = -std::numeric_limits<float>::infinity();  // a hidden key's score (mask_fill)
  bool causal = false;
  MaskKind mask = MaskKind::kNone;
  std::vector<int64_t> q, k, v, m, o;  // strides at the output's rank (0 where broadcast)
  int64_t rows = 0;                    // query rows per work item: L split evenly
  size_t per_thread_floats = 0;        // scores block, running max and sum
  int threads = 1;
};

/// Offsets of batch element `t` in q, k, v, the mask and the output.
std::array<int64_t, 5> batch_offsets(const AttentionGeometry& g, int64_t t) {
  std::array<int64_t, 5> off{};
  for (size_t d = g.batch.size(); d-- > 0;) {
    const int64_t index = t % g.batch[d];
    t /= g.batch[d];
    off[0] += index * g.q[d], off[1] += index * g.k[d], off[2] += index * g.v[d];
    off[3] += index * g.m[d], off[4] += index * g.o[d];
  }
  return off;
}

/// Masks one block of scores (rows i0.., keys j0..; `ld` floats per row).
void mask_block(const AttentionGeometry& g, const void* mask, int64_t mask_offset, float* scores,
                int64_t ld, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
  const float fill = g.fill;
  const size_t r = g.q.size();
  const int64_t mi = g.m[r - 2], mj = g.m[r - 1];
  for (int64_t a = 0; a < rows; ++a) {
    float* row = scores + a * ld;
    const int64_t i = i0 + a;
    if (g.causal) {
      for (int64_t b = std::max<int64_t>(0, i + 1 - j0); b < cols; ++b) row[b] = fill;
    }
    const int64_t base = mask_offset + i * mi + j0 * mj;
    if (g.mask == MaskKind::kBool) {
      const auto* m = static_cast<const uint8_t*>(mask) + base;
      for (int64_t b = 0; b < cols; ++b) row[b] = m[b * mj] ? row[b] : fill;
    } else if (g.mask == MaskKind::kFloat) {
      const float* m = static_cast<const float*>(mask) + base;
      for (int64_t b = 0; b < cols; ++b) row[b] += m[b * mj];
    }
  }
}

/// One work item: query rows i0 .. i0 + rows of batch element t, over every key block.
void attend(const AttentionGeometry& g, const float* q, const float* k, const float* v,
            const void* mask, float* out, float* scratch, int64_t t, int64_t i0, int64_t rows) {
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  const RowKernels& kernels = row_kernels();
  const auto off = batch_offsets(g, t);
  const size_t r = g.q.size();
  float* scores = scratch;
  float* top = scores + kRowBlock * kKeyBlock;
  float* sum = top + kRowBlock;
  const int64_t ldo = g.o[r - 2];
  float* o = out + off[4] + i0 * ldo;
  std::fill(top, top + rows, kMinusInf);
  std::fill(sum, sum + rows, 0.0f);
  for (int64_t a = 0; a < rows; ++a) std::fill(o + a * ldo, o + a * ldo + g.ev, 0.0f);
  // Folds keys j0 .. j0 + cols into the running softmax and the output rows.
  auto fold_keys = [&](int64_t j0, int64_t cols) {
    dnnl_sgemm('N', 'T', rows, cols, g.e, g.scale, q + off[0] + i0 * g.q[r - 2], g.q[r - 2],
               k + off[1] + j0 * g.k[r - 2], g.k[r - 2], 0.0f, scores, cols);
    if (g.causal || g.mask != MaskKind::kNone) {
      mask_block(g, mask, off[3], scores, cols, i0, rows, j0, cols);
    }
    for (int64_t a = 0; a < rows; ++a) {
      float* row = scores + a * cols;
      const float new_top = std::max(top[a], kernels.max(row, cols));
      if (new_top == kMinusInf) {  // every key so far masked: nothing to add yet
        std::fill(row, row + cols, 0.0f);
        continue;
      }
      const float rescale = std::exp(top[a] - new_top);
      sum[a] = sum[a] * rescale + kernels.exp_sum(row, cols, new_top);
      if (rescale != 1.0f) {
        for (int64_t c = 0; c < g.ev; ++c) o[a * ldo + c] *= rescale;
      }
      top[a] = new_top;
    }
    dnnl_sgemm('N', 'N', rows, g.ev, cols, 1.0f, scores, cols, v + off[2] + j0 * g.v[r - 2],
               g.v[r - 2], 1.0f, o, ldo);
  };
  // A causal mask hides every key after the block's last row. With a finite fill those keys
  // still weigh exp(fill - top) each: they are skipped only where that is 0 in every row (the
  // exp above is 0 below -87), else folded in as well (a NaN fill too, which makes NaN).
  const int64_t keys = g.causal ? std::min(g.s, i0 + rows) : g.s;
  for (int64_t j0 = 0; j0 < keys; j0 += kKeyBlock) fold_keys(j0, std::min(kKeyBlock, keys - j0));
  auto weighs = [&](float row_top) { return !(g.fill - row_top < -87.0f); };
  if (keys < g.s && g.fill != kMinusInf && std::any_of(top, top + rows, weighs)) {
    for (int64_t j0 = keys; j0 < g.s; j0 += kKeyBlock) {
      fold_keys(j0, std::min(kKeyBlock, g.s - j0));
    }
  }
  for (int64_t a = 0; a < rows; ++a) {
    // All keys masked: 0 / 0, NaN, as torch's softmax of a row of -inf. No keys at all: the
    // empty sum, 0, as torch's matmul of an empty softmax.
    const float inv = g.s == 0 ? 0.0f : 1.0f / sum[a];
    for (int64_t c = 0; c < g.ev; ++c) o[a * ldo + c] *= inv;
  }
}

/// The layout attention reads operand `o` in: its strided view when its rows are unit-stride
/// (what sgemm needs), else plain.
md_t read_layout(const Operand& o) {
  if (!o.strided.is_zero()) {
    auto layout = strided_layout(o.strided);
    if (layout && (layout->dims.back() == 1 || layout->strides.back() == 1)) return o.strided;
  }
  return plain_md(o.shape(), o.type.dtype);
}

/// `md`'s strides at rank `rank`: leading dims it lacks, and dims of size 1 (broadcast), read
/// with stride 0; the last two dims (rows and elements) keep theirs.
std::vector<int64_t> aligned_strides(const md_t& md, size_t rank) {
  const StridedLayout layout = *strided_layout(md);
  std::vector<int64_t> out(rank, 0);
  const size_t lead = rank - layout.dims.size();
  for (size_t i = 0; i < layout.dims.size(); ++i) {
    const bool row_or_element = i + 2 >= layout.dims.size();
    out[lead + i] = layout.dims[i] == 1 && !row_or_element ? 0 : layout.strides[i];
  }
  return out;
}

/// True if constant mask `c` is the causal mask of L queries and S keys: key j visible to
/// query i exactly when j <= i (bool true there, or a float 0 there and -inf elsewhere), one
/// (L, S) matrix for every batch element (its leading dims all 1).
bool is_causal_constant(const ConstantTensor& c, int64_t l, int64_t s) {
  if (c.numel() != l * s || c.shape().size() < 2 || c.shape()[c.shape().size() - 2] != l) {
    return false;
  }
  const bool is_bool = c.dtype() == DType::kBool;
  const auto* flags = reinterpret_cast<const uint8_t*>(c.data);
  for (int64_t i = 0; i < l; ++i) {
    for (int64_t j = 0; j < s; ++j) {
      const int64_t at = i * s + j;
      const bool visible = is_bool ? flags[at] != 0 : c.f32()[at] == 0.0f;
      const bool hidden = is_bool ? flags[at] == 0 : c.f32()[at] == -std::numeric_limits<float>::infinity();
      if (j <= i ? !visible : !hidden) return false;
    }
  }
  return true;
}

void run_attention(const AttentionGeometry& g, const KernelMemories& m) {
  const auto* q = static_cast<const float*>(m.srcs[0].get_data_handle());
  const auto* k = static_cast<const float*>(m.srcs[1].get_data_handle());
  const auto* v = static_cast<const float*>(m.srcs[2].get_data_handle());
  const void* mask = g.mask == MaskKind::kNone ? nullptr : m.srcs[3].get_data_handle();
  auto* out = static_cast<float*>(m.dst.get_data_handle());
  auto* scratch = static_cast<float*>(m.scratchpad);
  int64_t batches = 1;
  for (Dim d : g.batch) batches *= d;
  const int64_t row_blocks = g.rows == 0 ? 0 : (g.l + g.rows - 1) / g.rows;
  const int64_t items = batches * row_blocks;
#pragma omp parallel for schedule(dynamic) num_threads(g.threads)
  for (int64_t item = 0; item < items; ++item) {
    const int64_t t = item / row_blocks, i0 = item % row_blocks * g.rows;
    float* mine = scratch + static_cast<size_t>(omp_get_thread_num()) * g.per_thread_floats;
    attend(g, q, k, v, mask, out, mine, t, i0, std::min(g.rows, g.l - i0));
  }
}

}  // namespace

std::optional<KernelPlan> build_attention(KernelContext& ctx) {
  const Operand& q = ctx.operand(0);
  const Operand& k = ctx.operand(1);
  const Operand& v = ctx.operand(2);
  const Operand& mask = ctx.operand(3);
  auto dropout = ctx.float_attr("dropout_p");
  auto causal = ctx.bool_attr("is_causal");
  auto mask_fill = ctx.float_attr("mask_fill");
  const AttrValue* scale = ctx.attr("scale");
  if (!dropout || !causal || !scale || !mask_fill) return std::nullopt;
  if (!q.is_tensor() || !k.is_tensor() || !v.is_tensor()) return ctx.not_implemented("a scalar operand");
  auto f32 = [](const Operand& o) { return o.type.dtype == DType::kFloat32; };
  if (!f32(q) || !f32(k) || !f32(v) || ctx.out().dtype != DType::kFloat32 ||
      (mask.is_tensor() && !f32(mask) && mask.type.dtype != DType::kBool)) {
    return ctx.not_implemented("attention on dtypes other than float32 (with a bool or float32 mask)");
  }
  if (*dropout != 0) return ctx.not_implemented("dropout_p > 0 (it drops at random)");
  AttentionGeometry g;
  const Shape& out = ctx.out().shape;
  const size_t rank = out.size();
  g.batch.assign(out.begin(), out.end() - 2);
  g.l = out[rank - 2];
  g.ev = out[rank - 1];
  g.e = q.shape().back();
  g.s = k.shape()[k.shape().size() - 2];
  g.scale = static_cast<float>(std::holds_alternative<double>(*scale)
                                   ? std::get<double>(*scale)
                                   : 1.0 / std::sqrt(static_cast<double>(g.e)));
  g.causal = *causal;
  // Rounded to float32 as masked_fill's value is; beyond float32's range (torch refuses it) an
  // infinity.
  constexpr float kInf = std::numeric_limits<float>::infinity();
  g.fill = std::abs(*mask_fill) > std::numeric_limits<float>::max()
               ? (*mask_fill > 0 ? kInf : -kInf)
               : static_cast<float>(*mask_fill);
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = read_layout(q);
  plan.src_mds[1] = read_layout(k);
  plan.src_mds[2] = read_layout(v);
  plan.dst_md = layout_for_users(ctx.node(), out);
  if (auto written = strided_layout(plan.dst_md);
      written->dims.back() != 1 && written->strides.back() != 1) {
    plan.dst_md = plain_md(out);  // the users move the element dim: rows are not unit-stride
  }
  g.q = aligned_strides(plan.src_mds[0], rank);
  g.k = aligned_strides(plan.src_mds[1], rank);
  g.v = aligned_strides(plan.src_mds[2], rank);
  g.o = aligned_strides(plan.dst_md, rank);
  g.m.assign(rank, 0);
  // A constant causal mask (a buffer sliced and compared, folded at compile time) is is_causal:
  // the key blocks it hides are skipped instead of computed and masked. A float one hides with
  // -inf whatever mask_fill is, so with a finite fill only a bool one is is_causal.
  const bool causal_mask = mask.is_tensor() && mask.constant != nullptr &&
                           (mask.type.dtype == DType::kBool || g.fill == -kInf) &&
                           is_causal_constant(*mask.constant, g.l, g.s);
  if (causal_mask) {
    g.causal = true;
  } else if (mask.is_tensor()) {
    g.mask = f32(mask) ? MaskKind::kFloat : MaskKind::kBool;
    g.m = broadcast_strides(mask.shape(), rank);
  }
  // sgemm needs unit stride along E and Ev, and a leading dimension at least a row's length
  // (a dim of size 1 has the stride a dense layout gives it: view_md).
  g.q[rank - 1] = g.k[rank - 1] = g.v[rank - 1] = g.o[rank - 1] = 1;
  g.q[rank - 2] = std::max(g.q[rank - 2], g.e), g.k[rank - 2] = std::max(g.k[rank - 2], g.e);
  g.v[rank - 2] = std::max(g.v[rank - 2], g.ev), g.o[rank - 2] = std::max(g.o[rank - 2], g.ev);
  g.threads = std::max(1, omp_get_max_threads());
  // Even blocks: 300 rows are two items of 150, not 256 and a sliver of 44.
  const int64_t row_block = g.causal ? kCausalRowBlock : kRowBlock;
  const int64_t blocks = (g.l + row_block - 1) / row_block;
  g.rows = blocks == 0 ? 0 : (g.l + blocks - 1) / blocks;
  // Each thread's slice starts on a cache line.
  g.per_thread_floats = (kRowBlock * kKeyBlock + 2 * kRowBlock + 15) / 16 * 16;

  if (mask.is_tensor() && !causal_mask) plan.src_mds[3] = plain_md(mask.shape(), mask.type.dtype);
  plan.scratchpad_bytes = g.per_thread_floats * sizeof(float) * static_cast<size_t>(g.threads);
  plan.impl = causal_mask ? "attention: blocked online softmax, sgemm, causal mask as is_causal"
                          : "attention: blocked online softmax, sgemm";
  plan.kernel = std::make_unique<LoopKernel>(
      [geometry = std::move(g)](const KernelMemories& m) { run_attention(geometry, m); });
  return plan;
}

}  // namespace graft::runtime
