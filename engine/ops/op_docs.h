// docs/ops.md, generated from the op registry: every op's signature, classes, aliases and doc.
// `rewrite ops --markdown` prints it; engine_test checks that the committed file is current.
#pragma once

#include <string>

#include "engine/ops/op_registry.h"

namespace graft {

/// The Markdown reference of every op in `registry`, in table order.
std::string render_ops_markdown(const OpRegistry& registry);

}  // namespace graft
