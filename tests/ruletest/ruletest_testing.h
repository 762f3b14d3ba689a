// Helpers for ruletest tests: graphs from test-graph text, through the real parser and sema.
#pragma once

#include <string>

#include "dsl/test_graph.h"

namespace graft::testing {

/// The graph of `graph_text` (`graph(x: f32[2, 3]) { … }`), built with `seed`; fails the test
/// on any diagnostic.
dsl::TestGraph graph_of(const std::string& graph_text, uint64_t seed = 0);

/// The expected graph `expected_text` (`graph { … }`) over the inputs of `graph_text`.
dsl::TestGraph expected_graph_of(const std::string& graph_text, const std::string& expected_text);

}  // namespace graft::testing
