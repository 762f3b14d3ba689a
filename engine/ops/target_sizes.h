// The sizes a reshape or an unflatten asks for (a `SymInt[]` attribute: numbers, one -1 and
// symbols such as T), read once for both shape functions, and what can be said about them
// when the input's size is symbolic: the symbols on both sides cancel, so [N, T, 768] into
// [N, -1, 12, 64] gives T for the -1.
#pragma once

#include <string>

#include "engine/ir/attr.h"
#include "engine/ir/shape.h"

namespace graft::shape_fns {

struct TargetSizes {
  Shape dims;              // the sizes: a symbol as its dim, the -1 as -1
  int inferred = -1;       // the index of the first -1; -1 when there is none
  int second_inferred = -1;  // the index of a second -1 (an error), or -1
  int negative = -1;       // the index of the first size below -1 (an error), or -1
  int64_t known = 1;       // the product of the concrete sizes
  /// Whether that product overflows int64 on the way, in order as torch's numel counts, so
  /// [2^62, 2^62, 0] overflows and [0, 2^62, 2^62] is empty.
  bool overflow = false;
  Shape symbols;           // the dims of the symbols among the sizes, in order
  std::string text;        // the sizes as written: "[-1, T, 12, 64]"
};

TargetSizes read_target_sizes(const SymInts& items);

/// The size the -1 of `target` stands for when dims `from` (the input's shape, or the one dim
/// an unflatten splits) hold as many elements and one of them is symbolic: with the target's
/// symbols taken out of `from`, the one symbol left when the concrete sizes agree, or the
/// quotient of the concrete sizes when no symbol is left; unknown otherwise.
Dim inferred_symbolic_size(const Shape& from, const TargetSizes& target);

/// Whether `from` cannot hold the elements of `target` (which has no -1) whatever the symbols'
/// values (but 0): both name the same symbols and no unknown dim, and the concrete sizes
/// multiply to different counts.
bool certainly_different_count(const Shape& from, const TargetSizes& target);

}  // namespace graft::shape_fns
