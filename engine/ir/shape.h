// Tensor types: a dtype and a shape whose dims are concrete sizes or named symbols ("N").
// A dim is an int64: >= 0 is a concrete size, < 0 is a symbol (see dim_symbol()). Unknown
// sizes (results of arithmetic on symbols) are the symbol "?". Keeping dims plain integers
// keeps per-node metadata small on million-node graphs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/dtype.h"

namespace graft {

using Dim = int64_t;
using Shape = std::vector<Dim>;

/// The dim for symbol `name` (interned process-wide, thread-safe).
Dim dim_symbol(std::string_view name);
/// The unknown dim "?".
Dim unknown_dim();
inline bool is_concrete(Dim d) { return d >= 0; }
bool is_concrete(const Shape& shape);
/// "N" for a symbolic dim, "7" for a concrete one.
std::string dim_to_string(Dim d);
/// "[N, 3, 224, 224]"
std::string shape_to_string(const Shape& shape);
/// Product of the dims, or nullopt if a dim is symbolic or the product overflows int64.
std::optional<int64_t> element_count(const Shape& shape);
/// Row-major element strides of a dense tensor of concrete `shape` seen with `rank` >= its own
/// dims, aligned to the right: 0 for the dims it lacks and for its size-1 dims, so that walking
/// the broadcast shape walks the tensor too (torch's broadcasting).
std::vector<int64_t> broadcast_strides(const Shape& shape, size_t rank);

struct TensorType {
  DType dtype = DType::kFloat32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const TensorType&) const = default;
};

/// The process's one copy of `type`: equal types are the same object, as MLIR uniques its
/// types in a context. A node's type is such a pointer (NodeMeta::type), so a node carries
/// one word instead of a shape vector, copying a type allocates nothing, and two types are
/// compared by address — the rewrite driver compares the operand types of every op it builds
/// with those of the op's last inference (engine/rewrite/type_memo.h). Thread-safe. The copies are
/// never freed, as symbolic dims are not: a process holds as many as the distinct types of
/// the models it has seen (a few hundred per model, ~100 bytes each) — a fuzzing campaign's
/// random shapes accumulate the same way, so its memory grows slowly with its length.
const TensorType* unique_type(const TensorType& type);
/// True if `type` is unique_type()'s copy (for the debug checks of the functions that take
/// one); takes the table's lock.
bool is_unique_type(const TensorType* type);
/// How many distinct types unique_type() holds (tests).
size_t unique_type_count();

/// The largest tensor graft accepts, in bytes (256 TiB): far beyond any machine, and small
/// enough that byte counts, strides and offsets never overflow int64 anywhere downstream.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 48;
/// Whether the concrete dims of `type` stay within kMaxTensorBytes (symbolic dims count as 1;
/// they are checked again once bound).
bool within_size_limit(const TensorType& type);
/// "float32[65536, 65536, 65536] would take more than 256 TiB, the limit for one tensor", plus
/// "(its element count overflows int64)" when it does.
std::string size_limit_message(const TensorType& type);

/// "float32[N, 3, 224, 224]"
std::string type_to_string(const TensorType& type);

}  // namespace graft
