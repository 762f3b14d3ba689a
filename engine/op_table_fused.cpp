// Fused ops: what the runtime's fusion rules (rules/std/runtime.rules) rewrite torch ops into,
// e.g. a convolution with a post-op activation. They are ordinary registry ops so rules can
// produce them and the verifier and printers understand them.
#include "engine/op_registry.h"
#include "engine/shape_infer.h"

namespace graft {

std::vector<OpDef> fused_op_defs() { return {}; }

}  // namespace graft
