// Random well-formed graphs for property tests: fx-style graphs built with the IR's API from
// the ops the standard rule library (rules/std.rules) rewrites — conv2d blocks with batch-norm,
// activations (also written out by hand: x * sigmoid(x), the erf and tanh GELUs, hardswish),
// residual adds, linear and matmul + bias layers, dropout, no-op and identity arithmetic,
// reshape / transpose / permute chains — so that rules fire, and so that they sometimes must
// not: values with several users, graph outputs in the middle of a pattern, near-misses.
// This file's external interface is random_graph().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/ir/graph.h"

namespace graft::testing {

struct RandomGraphOptions {
  int min_blocks =
      3;  // blocks of a few ops each (a conv layer, an activation, a layout round trip…)
  int max_blocks = 9;
};

/// The graph of `seed`: typed float32 placeholders, constants in the graph's store, every
/// call_function node typed by its shape function, and an output node with every value that
/// has no user plus a few intermediate ones (now and then a value twice, or an input).
/// Deterministic per seed. Returns nullptr and sets `error` when an op rejects the generated
/// operands (a bug of the generator).
std::unique_ptr<Graph> random_graph(uint64_t seed, const RandomGraphOptions& options,
                                    std::string* error);

}  // namespace graft::testing
