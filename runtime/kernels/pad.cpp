// pad on plain layouts, any dtype: oneDNN 2.6 has no padding primitive. The trailing dims that
// are not padded form one block copied whole; along the last padded dim the output row splits
// into runs that read consecutive input blocks (one memcpy each) or the fill value, computed
// once at compile time from engine/ops/pad_geometry.h. The dims before it are walked with their
// source index looked up per output index.
#include <cstring>

#include "engine/ops/pad_geometry.h"
#include "eval/element_cast.h"
#include "runtime/kernels/families.h"

namespace graft::runtime {
namespace {

/// A stretch of the last padded dim's output: `length` blocks from input block `src` on, or
/// the fill value when src is -1.
struct Run {
  int64_t out_start, src, length;
};

struct PadGeometry {
  size_t padded_dims = 0;                  // dims up to and including the last padded one
  size_t block_bytes = 0;                  // the unpadded trailing dims, whole
  std::vector<std::vector<int64_t>> maps;  // per outer dim: output index -> source index
  std::vector<int64_t> in_strides;         // per outer dim, in rows of the last padded dim
  std::vector<Run> runs;                   // the last padded dim
  int64_t in_row = 0, out_row = 0;         // blocks per row of the last padded dim
};

PadGeometry plan_geometry(PadMode mode, const Shape& in, const Shape& out,
                          const std::vector<std::pair<int64_t, int64_t>>& pads, size_t element) {
  PadGeometry g;
  g.padded_dims = in.size();
  while (g.padded_dims > 0 && pads[g.padded_dims - 1] == std::make_pair<int64_t, int64_t>(0, 0)) {
    --g.padded_dims;
  }
  g.block_bytes = element;
  for (size_t d = g.padded_dims; d < in.size(); ++d) g.block_bytes *= static_cast<size_t>(in[d]);
  if (g.padded_dims == 0) return g;
  const size_t last = g.padded_dims - 1;
  int64_t stride = 1;  // in rows of the last padded dim
  g.in_strides.assign(last, 0);
  for (size_t d = last; d-- > 0;) {
    g.in_strides[d] = stride;
    stride *= in[d];
  }
  for (size_t d = 0; d < last; ++d) {
    std::vector<int64_t> map(static_cast<size_t>(out[d]));
    for (int64_t o = 0; o < out[d]; ++o) {
      map[static_cast<size_t>(o)] = pad_source_index(mode, o, in[d], pads[d].first, pads[d].second);
    }
    g.maps.push_back(std::move(map));
  }
  g.in_row = in[last];
  g.out_row = out[last];
  for (int64_t o = 0; o < out[last]; ++o) {
    int64_t src = pad_source_index(mode, o, in[last], pads[last].first, pads[last].second);
    Run* prev = g.runs.empty() ? nullptr : &g.runs.back();
    bool extends =
        prev && (src < 0 ? prev->src < 0 : prev->src >= 0 && prev->src + prev->length == src);
    if (extends) {
      ++prev->length;
    } else {
      g.runs.push_back({o, src, 1});
    }
  }
  return g;
}

/// Copies one row of the last padded dim (or fills it, when `src` is null).
void copy_row(const PadGeometry& g, const std::byte* src, std::byte* dst, const std::byte* fill) {
  for (const Run& r : g.runs) {
    std::byte* to = dst + static_cast<size_t>(r.out_start) * g.block_bytes;
    size_t bytes = static_cast<size_t>(r.length) * g.block_bytes;
    if (src != nullptr && r.src >= 0) {
      std::memcpy(to, src + static_cast<size_t>(r.src) * g.block_bytes, bytes);
    } else {
      std::memcpy(to, fill, bytes);
    }
  }
}

void run_pad(const PadGeometry& g, const std::byte* src, std::byte* dst, int64_t total_blocks,
             const std::vector<std::byte>& fill) {
  if (g.padded_dims == 0) {
    std::memcpy(dst, src, static_cast<size_t>(total_blocks) * g.block_bytes);
    return;
  }
  const size_t outer = g.maps.size();
  const int64_t rows = g.out_row == 0 ? 0 : total_blocks / g.out_row;
  std::vector<size_t> index(outer, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (size_t d = 0; d < outer && offset >= 0; ++d) {
      int64_t s = g.maps[d][index[d]];
      offset = s < 0 ? -1 : offset + s * g.in_strides[d];
    }
    const std::byte* row =
        offset < 0 ? nullptr : src + static_cast<size_t>(offset * g.in_row) * g.block_bytes;
    copy_row(g, row, dst + static_cast<size_t>(r * g.out_row) * g.block_bytes, fill.data());
    for (size_t d = outer; d-- > 0;) {
      if (++index[d] < g.maps[d].size()) break;
      index[d] = 0;
    }
  }
}

/// The fill value repeated over a whole row: the source of every fill memcpy.
std::vector<std::byte> fill_pattern(const PadGeometry& g, const std::vector<std::byte>& element) {
  int64_t longest = g.padded_dims == 0 ? 0 : g.out_row;
  std::vector<std::byte> pattern(static_cast<size_t>(longest) * g.block_bytes);
  for (size_t i = 0; i < pattern.size(); i += element.size()) {
    std::memcpy(&pattern[i], element.data(), element.size());
  }
  return pattern;
}

}  // namespace

std::optional<KernelPlan> build_pad(KernelContext& ctx) {
  const Operand& x = ctx.operand(0);
  auto pad = ctx.ints_attr("pad");
  auto mode_name = ctx.str_attr("mode");
  auto value = ctx.float_or("value", 0);
  if (!pad || !mode_name || !value) return std::nullopt;
  std::optional<PadMode> mode = parse_pad_mode(*mode_name);
  if (!x.is_tensor() || !mode) return ctx.not_implemented("pad of this input or mode");
  const DType dtype = ctx.out().dtype;
  std::optional<std::vector<std::byte>> element = eval::fill_element(dtype, *value);
  if (!element)
    return ctx.not_implemented(std::string("a nonzero fill value in dtype ") + dtype_name(dtype));
  KernelPlan plan = make_plan(ctx);
  plan.src_mds[0] = plain_md(x.shape(), x.type.dtype);
  plan.dst_md = plain_md(ctx.out().shape, dtype);
  plan.impl = "pad rows";
  auto geometry = std::make_shared<PadGeometry>(plan_geometry(
      *mode, x.shape(), ctx.out().shape, pads_per_dim(*pad, x.shape().size()), element->size()));
  auto fill = std::make_shared<std::vector<std::byte>>(fill_pattern(*geometry, *element));
  int64_t out_elements = 1;
  for (int64_t s : ctx.out().shape) out_elements *= s;
  const int64_t total_blocks = geometry->block_bytes == 0
                                   ? 0
                                   : out_elements * static_cast<int64_t>(element->size()) /
                                         static_cast<int64_t>(geometry->block_bytes);
  plan.kernel =
      std::make_unique<LoopKernel>([geometry, fill, total_blocks](const KernelMemories& m) {
        run_pad(*geometry, static_cast<const std::byte*>(m.srcs[0].get_data_handle()),
                static_cast<std::byte*>(m.dst.get_data_handle()), total_blocks, *fill);
      });
  return plan;
}

}  // namespace graft::runtime
