// Op schemas for runtime tests. Tests take each op from the registry; while the registry
// still lacks an op (engine/ops/op_table.cpp is being completed), a test-local schema with the
// torch.nn.functional signature stands in, so the kernels can be tested now and are tested
// against the real rows as soon as they land.
#pragma once

#include <string>

#include "engine/ops/op_schema.h"

namespace graft::testing {

/// The registry's schema for `op`, or the stand-in; nullptr if neither exists.
const OpSchema* runtime_test_schema(const std::string& op);
/// True if `op` comes from the registry (not a stand-in).
bool in_registry(const std::string& op);

}  // namespace graft::testing
