// Row blocks: an inner product run as one single-threaded primitive per thread, each on a block
// of the rows, side by side. oneDNN 2.6 splits some small-batch inner products poorly across
// threads (a ViT-B/16 projection of 197 rows runs at 152 GFLOP/s on two cores, where two row
// blocks reach 186), so the linear kernel uses row blocks where they pay. That depends on the
// shape, the post-ops and the host, so it is measured, both ways, at compile time, once per
// distinct configuration in a process. Internal to graft_runtime.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel.h"

namespace graft::runtime {

/// The inner product over `rows` rows with weights in layout `weights`; throws dnnl::error as
/// oneDNN does.
using InnerProductFactory =
    std::function<dnnl::inner_product_forward::primitive_desc(int64_t rows, const md_t& weights)>;

/// What the linear kernel built as one primitive, for row blocks to share and race against.
struct WholeInnerProduct {
  const dnnl::inner_product_forward::primitive_desc& pd;
  const dnnl::primitive& primitive;
  int64_t rows = 0, k = 0, n = 0;
  /// The weight and bias arguments, constants the plan owns (reordered into pd's layout).
  std::vector<std::pair<int, ArgSource>> params;
};

/// A row-block kernel and its blocks' oneDNN implementation ("brgemm:avx512_core").
struct RowBlockKernel {
  std::unique_ptr<Kernel> kernel;
  std::string impl;
};

/// Row blocks of `whole`, one per OpenMP thread, if `mode` asks for them or (kMeasure) they run
/// faster than `whole` here; nullopt to keep `whole` (one thread, too few rows, a layout the
/// single-threaded primitive does not take). `key` names the configuration in the memo of
/// measurements. Raises `scratchpad_bytes` to what the blocks need side by side.
std::optional<RowBlockKernel> row_block_kernel(const InnerProductFactory& make,
                                               const WholeInnerProduct& whole,
                                               CompileOptions::RowBlocks mode,
                                               const std::string& key, size_t& scratchpad_bytes);

}  // namespace graft::runtime
