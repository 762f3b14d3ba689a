// The rewrite driver's constant folder (engine/rewriter.h) built on the reference kernels:
// replacement expressions over constants (the folded conv-bn weights) are computed with the
// same obviously-correct loops the runtime is tested against.
#pragma once

#include "engine/rewriter.h"

namespace graft::runtime {

/// Folds float32 ops with the reference kernels; other dtypes are reported as not supported.
ConstantFolder reference_constant_folder();

}  // namespace graft::runtime
