// oneDNN helper implementations.
#include "runtime/dnnl_util.h"

#include <algorithm>
#include <numeric>

#include "eval/allocation.h"

namespace graft::runtime {

dnnl::memory::dims to_dims(const Shape& shape) {
  if (shape.empty()) return {1};
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::dims dense_strides(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[static_cast<size_t>(i)] =
        strides[static_cast<size_t>(i) + 1] * std::max<int64_t>(dims[static_cast<size_t>(i) + 1], 1);
  }
  return strides;
}

namespace {

/// The oneDNN data type that carries `dtype`'s elements (s32 pairs for 8-byte ones).
dt carrier_type(DType dtype) {
  switch (dtype_size(dtype)) {
    case 1: return dtype == DType::kInt8 ? dt::s8 : dt::u8;
    case 2: return dtype == DType::kBFloat16 ? dt::bf16 : dt::f16;
    case 4: return dtype == DType::kFloat32 ? dt::f32 : dt::s32;
    default: return dt::s32;
  }
}

}  // namespace

int element_dims(DType dtype) { return dtype_size(dtype) == 8 ? 1 : 0; }

md_t plain_md(const Shape& shape, DType dtype) {
  dnnl::memory::dims dims = to_dims(shape);
  if (element_dims(dtype) > 0) dims.push_back(2);
  return md_t(dims, carrier_type(dtype), dense_strides(dims));
}

md_t strided_md(dnnl::memory::dims dims, dnnl::memory::dims strides, DType dtype) {
  if (element_dims(dtype) > 0) {
    for (auto& s : strides) s *= 2;
    dims.push_back(2);
    strides.push_back(1);
  }
  return md_t(dims, carrier_type(dtype), strides);
}

md_t plain_like(const md_t& md) {
  dnnl::memory::dims dims(md.data.dims, md.data.dims + md.data.ndims);
  return md_t(dims, md.data_type(), dense_strides(dims));
}

md_t any_md(const Shape& shape) { return md_t(to_dims(shape), dt::f32, tag::any); }

bool is_plain(const md_t& md) {
  if (md.data.format_kind != dnnl_blocked) return false;
  return md == plain_like(md);
}

Shape md_shape(const md_t& md) {
  return Shape(md.data.dims, md.data.dims + md.data.ndims);
}

std::string layout_name(const md_t& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind == dnnl_format_kind_any) return "any";
  if (d.format_kind != dnnl_blocked) return "opaque";
  const auto& blk = d.format_desc.blocking;
  // Outer dims ordered by decreasing stride; a dim that also has an inner block is uppercase.
  std::vector<int> order(static_cast<size_t>(d.ndims));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return blk.strides[a] > blk.strides[b]; });
  std::string name;
  for (int dim : order) {
    bool blocked = false;
    for (int i = 0; i < blk.inner_nblks; ++i) blocked |= blk.inner_idxs[i] == dim;
    name += static_cast<char>((blocked ? 'A' : 'a') + dim);
  }
  for (int i = 0; i < blk.inner_nblks; ++i) {
    name += std::to_string(blk.inner_blks[i]) + static_cast<char>('a' + blk.inner_idxs[i]);
  }
  return name;
}

std::string impl_name(const dnnl::primitive_desc_base& pd) {
  const char* s = pd.impl_info_str();
  return s ? s : "?";
}

dnnl::memory constant_memory(const ConstantTensor& c, const md_t& md, const dnnl::engine& eng) {
  // oneDNN's API takes a non-const handle; constants are only ever read (kernels never take
  // a constant's buffer for in-place writes: the compiler only reuses arena buffers).
  return dnnl::memory(md, eng, const_cast<std::byte*>(c.data));
}

OwnedMemory reorder_constant(const ConstantTensor& c, const md_t& have, const md_t& want,
                             const dnnl::engine& eng) {
  dnnl::memory src = constant_memory(c, have, eng);
  OwnedMemory dst;
  dst.bytes = eval::allocate_buffer(want.get_size(), 64, false,
                                    [] { return std::string("a reordered weight"); });
  dst.memory = dnnl::memory(want, eng, dst.bytes.get());
  dnnl::stream s(eng);
  dnnl::reorder(src, dst.memory).execute(s, src, dst.memory);
  s.wait();
  return dst;
}

dnnl::engine& cpu_engine() {
  static dnnl::engine* eng = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *eng;
}

}  // namespace graft::runtime
