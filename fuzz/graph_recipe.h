// A fuzz input read as a recipe for a small, well-formed graph (fuzz_rewrite's input format).
//
// Bytes are consumed as choices: the placeholders (rank, sizes, dtype, a symbolic batch "N"),
// then one step per op — which op, which earlier values it reads, its attributes and the
// constants it needs (weights, biases, batch-norm statistics) with shapes derived from its
// input. Besides single ops there are motifs: the multi-op forms the standard rules look for
// (x * sigmoid(x), the erf and tanh GELUs, hand-written hardswish, matmul + bias, conv +
// batch_norm + relu, residual adds), which random single steps would rarely assemble.
// A step whose op shape inference rejects is dropped, so every recipe gives a valid graph;
// running out of bytes reads zeros. The graph returns every value nothing else reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/ir/graph.h"

namespace graft::fuzz {

/// The graph `data` describes (at most `max_steps` op steps).
std::unique_ptr<Graph> graph_from_recipe(const uint8_t* data, size_t size, int max_steps = 24);

}  // namespace graft::fuzz
