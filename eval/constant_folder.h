// The rewrite driver's constant folder (engine/rewrite/rewriter.h) built on the reference kernels:
// replacement expressions over constants (the folded conv-bn weights) are computed with the
// same obviously-correct loops the runtime is tested against.
#pragma once

#include "engine/rewrite/rewriter.h"

namespace graft::eval {

/// Which code computes a fold. Both give the same bytes; the generic path alone exists so that
/// tests can check that (tests/eval/elementwise_fold_test.cpp).
enum class FoldPath {
  kFastElementwise,  // float32 elementwise ops in place (elementwise_fold.h), the rest generic
  kGenericOnly,      // every op through the reference kernels' dispatch
};

/// Folds ops with the reference kernels: data movement of any dtype (exactly: int64 index
/// tensors too), arithmetic on float32; other cases are reported as not supported.
ConstantFolder reference_constant_folder(FoldPath path = FoldPath::kFastElementwise);

}  // namespace graft::eval
