// Strided view layouts (strided_view.h).
#include "runtime/strided_view.h"

#include <utility>

namespace graft::runtime {

std::optional<StridedLayout> strided_layout(const md_t& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.format_desc.blocking.inner_nblks != 0 || d.ndims == 0) {
    return std::nullopt;
  }
  StridedLayout layout;
  layout.dims.assign(d.dims, d.dims + d.ndims);
  layout.strides.assign(d.format_desc.blocking.strides, d.format_desc.blocking.strides + d.ndims);
  return layout;
}

md_t view_md(StridedLayout layout, dt type) {
  const std::vector<int64_t> dense = dense_strides(layout.dims);
  for (size_t i = 0; i < layout.dims.size(); ++i) {
    if (layout.dims[i] == 1) layout.strides[i] = dense[i];
  }
  return md_t(layout.dims, type, layout.strides);
}

std::optional<std::vector<int64_t>> reshape_strides(const StridedLayout& from,
                                                    const std::vector<int64_t>& dims) {
  const std::vector<int64_t>& old_dims = from.dims;
  const std::vector<int64_t>& old_strides = from.strides;
  std::vector<int64_t> strides(dims.size(), 1);
  if (old_dims.empty() || dims.empty()) return std::nullopt;
  // Walk the old dims from the innermost in chunks that are contiguous among themselves; each
  // chunk must be covered exactly by consecutive new dims, which then step through it.
  auto view_d = static_cast<int64_t>(dims.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (auto tensor_d = static_cast<int64_t>(old_dims.size()) - 1; tensor_d >= 0; --tensor_d) {
    const auto t = static_cast<size_t>(tensor_d);
    tensor_numel *= old_dims[t];
    if (tensor_d == 0 ||
        (old_dims[t - 1] != 1 && old_strides[t - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || dims[static_cast<size_t>(view_d)] == 1)) {
        strides[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= dims[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[t - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

StridedLayout permuted(const StridedLayout& layout, const std::vector<int64_t>& perm) {
  StridedLayout out;
  for (int64_t p : perm) {
    out.dims.push_back(layout.dims[static_cast<size_t>(p)]);
    out.strides.push_back(layout.strides[static_cast<size_t>(p)]);
  }
  return out;
}

std::optional<std::vector<int64_t>> permutation_of(const Node& node, int64_t rank) {
  const OpSchema* schema = node.schema();
  if (schema == nullptr || schema->family != OpFamily::kPermute) return std::nullopt;
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  auto dim = [rank](int64_t d) { return d < 0 ? d + rank : d; };
  if (schema->attr_index("dims") >= 0) {
    const AttrValue& value = node.attr("dims");
    std::vector<int64_t> dims;
    if (const auto* list = std::get_if<std::vector<int64_t>>(&value)) dims = *list;
    if (const auto* one = std::get_if<int64_t>(&value)) dims = {*one};
    if (static_cast<int64_t>(dims.size()) != rank) return std::nullopt;
    for (size_t i = 0; i < dims.size(); ++i) perm[i] = dim(dims[i]);
  } else {
    const auto* d0 = std::get_if<int64_t>(&node.attr("dim0"));
    const auto* d1 = std::get_if<int64_t>(&node.attr("dim1"));
    if (d0 == nullptr || d1 == nullptr) return std::nullopt;
    const int64_t a = dim(*d0), b = dim(*d1);
    if (a < 0 || a >= rank || b < 0 || b >= rank) return std::nullopt;
    std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

md_t layout_for_users(const Node& node, const Shape& shape) {
  const md_t plain = plain_md(shape);
  const auto rank = static_cast<int64_t>(shape.size());
  std::optional<std::vector<int64_t>> perm;
  for (const Node* user : node.users()) {
    auto p = permutation_of(*user, rank);
    if (!p || (perm && *perm != *p)) return plain;
    perm = std::move(p);
  }
  if (!perm || rank == 0) return plain;
  // Dim perm[k] of the result is dim k of what the users read, laid out densely.
  StridedLayout layout{std::vector<int64_t>(shape.begin(), shape.end()),
                       std::vector<int64_t>(shape.size(), 0)};
  const std::vector<int64_t> dense = dense_strides(permuted(layout, *perm).dims);
  for (size_t k = 0; k < perm->size(); ++k) layout.strides[static_cast<size_t>((*perm)[k])] = dense[k];
  return view_md(std::move(layout), dt::f32);
}

}  // namespace graft::runtime
