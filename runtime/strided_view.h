// Strided views: the layouts that transpose, permute, slice, select and reshape give a value
// when they relabel its bytes instead of copying them. A view's layout is a oneDNN descriptor
// with strides and no blocking, plus a byte offset into its buffer that the compiler keeps
// beside it (runtime/compiler.cpp). Kernels that read strided data (attention) take a view as
// it is; every other consumer gets one dense copy, made by the compiler's reorder, which is the
// copy the op itself would have made. Internal to graft_runtime.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ir/graph.h"
#include "runtime/dnnl_util.h"

namespace graft::runtime {

/// Dims and strides of a view, in elements.
struct StridedLayout {
  std::vector<int64_t> dims, strides;
};

/// `md`'s dims and strides when it is unblocked (plain or strided) and its elements are
/// described one per dim (not the s32 pairs of 8-byte types); nullopt otherwise.
std::optional<StridedLayout> strided_layout(const md_t& md);

/// The descriptor of `layout` in data type `type`. A dim of size 1 takes the stride a dense
/// layout would give it, so a view that is dense compares equal to plain_like() of itself.
md_t view_md(StridedLayout layout, dt type);

/// torch's view rule: the strides that show `from` with dims `dims` (the same number of
/// elements) without moving any, or nullopt where only a copy can (a flatten across a
/// transpose).
std::optional<std::vector<int64_t>> reshape_strides(const StridedLayout& from,
                                                    const std::vector<int64_t>& dims);

/// `layout` with its dims reordered: dim k of the result is dim perm[k] of `layout`.
StridedLayout permuted(const StridedLayout& layout, const std::vector<int64_t>& perm);

/// The permutation a transpose or permute node applies to an input of rank `rank` (result dim
/// k is input dim perm[k]), or nullopt for another node or attributes that are not one.
std::optional<std::vector<int64_t>> permutation_of(const Node& node, int64_t rank);

/// A layout of `shape` (float32) that every user of `node` reads dense: when all users permute
/// it the same way, the layout whose permutation is dense, so that the permute is a free view;
/// otherwise plain. For kernels that can write any strided layout (attention).
md_t layout_for_users(const Node& node, const Shape& shape);

}  // namespace graft::runtime
