// Small oneDNN helpers shared by the compiler and the kernels: memory descriptors from graft
// shapes, layout predicates, layout names for dumps, and constant tensors as oneDNN memory.
// Internal to graft_runtime (it includes dnnl.hpp; public headers must not).
#pragma once

#include <memory>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/ir/constants.h"
#include "engine/ir/shape.h"

namespace graft::runtime {

using md_t = dnnl::memory::desc;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dnnl::memory::dims to_dims(const Shape& shape);
/// The dense row-major descriptor of `shape` (a scalar shape [] becomes [1]) for elements of
/// `dtype`. oneDNN 2.6 has no 8-byte type, so an int64 (or float64) tensor is described as
/// s32 pairs: its dims plus a trailing dim of 2 (element_dims() says how many dims are
/// added). Only float32 is computed on by oneDNN; the others are moved (reorders, views).
md_t plain_md(const Shape& shape, DType dtype = DType::kFloat32);
/// A descriptor of `dims` with `strides` (in elements of `dtype`), encoded as plain_md does:
/// a strided view of a tensor for a reorder.
md_t strided_md(dnnl::memory::dims dims, dnnl::memory::dims strides, DType dtype);
/// The dims plain_md adds for `dtype`'s encoding: 1 for 8-byte elements, else 0.
int element_dims(DType dtype);
/// Row-major strides of `dims` (a zero dim counts as 1, as oneDNN wants strides positive).
dnnl::memory::dims dense_strides(const dnnl::memory::dims& dims);
/// The dense row-major descriptor with the dims and data type of `md`.
md_t plain_like(const md_t& md);
/// A float32 descriptor of `shape` with format_tag::any (the primitive chooses).
md_t any_md(const Shape& shape);
/// True if `md` is dense row-major (strides decreasing, no blocking, no padding).
bool is_plain(const md_t& md);
/// The logical dims of `md`.
Shape md_shape(const md_t& md);
/// A short layout name in oneDNN's letter notation: "abcd" (nchw), "aBcd16b" (nChw16c).
std::string layout_name(const md_t& md);
/// "conv: jit:avx512_core" style implementation name of a primitive descriptor.
std::string impl_name(const dnnl::primitive_desc_base& pd);

/// A memory viewing the constant's bytes (read-only by contract: no kernel writes to it).
dnnl::memory constant_memory(const ConstantTensor& c, const md_t& md, const dnnl::engine& eng);
/// A memory on bytes graft allocated (eval/allocation.h: huge pages when large), which `bytes`
/// keeps alive: oneDNN's own allocations cannot be asked for huge pages, and a model's weights
/// are read once per run from end to end, where 4 KiB pages cost a TLB miss every 4 KiB.
struct OwnedMemory {
  dnnl::memory memory;
  std::shared_ptr<void> bytes;
};
/// A new memory of layout `want` holding the constant (seen as `have`) reordered; used to
/// put weights into a kernel's preferred layout once, at compile time.
OwnedMemory reorder_constant(const ConstantTensor& c, const md_t& have, const md_t& want,
                             const dnnl::engine& eng);

/// The engine and stream every Executable shares (CPU, index 0).
dnnl::engine& cpu_engine();

}  // namespace graft::runtime
