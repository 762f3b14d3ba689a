// torch.matmul's operands as the batched product it computes, shared by the reference kernel,
// the runtime's kernel and the matmul benchmark: a 1-d left operand is a row [1, K], a 1-d
// right one a column [K, 1], both are padded with leading 1s to one rank, and the batch dims
// broadcast. The result keeps the promoted dims; torch's drops them (same elements).
#pragma once

#include <algorithm>
#include <optional>

#include "engine/ir/shape.h"

namespace graft {

struct MatmulShapes {
  Shape a, b, out;  // one rank, at least 2: [batch…, M, K], [batch…, K, N], [batch…, M, N]
};

/// The promoted shapes of matmul(a, b); nullopt for a 0-d operand. Sizes of 1 broadcast
/// (the caller checked the shapes, as the op's shape function does).
inline std::optional<MatmulShapes> promote_matmul(Shape a, Shape b) {
  if (a.empty() || b.empty()) return std::nullopt;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  Shape out(rank);
  for (size_t i = 0; i + 2 < rank; ++i) out[i] = std::max(a[i], b[i]);
  out[rank - 2] = a[rank - 2];
  out[rank - 1] = b[rank - 1];
  return MatmulShapes{std::move(a), std::move(b), std::move(out)};
}

}  // namespace graft
