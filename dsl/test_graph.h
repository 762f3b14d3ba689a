// Graphs of `test` blocks: builds the engine Graph a checked test's `graph(inputs) { … }`
// describes (typed placeholders, `param` constants, ops bound to their schemas, every node
// typed by its shape function), and the graph of an `expect graph { … }` block over the same
// inputs. This file's external interface is build_test_graph, build_expected_graph and
// rule_test_seed; rule tests (ruletest/) run rules on the results.
//
// Random `param` values come from a seed, so a test is reproducible: the same seed gives the
// same bytes on every machine (splitmix64, not <random>'s distributions, whose results differ
// between standard libraries).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "dsl/ast.h"
#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"

namespace graft::dsl {

/// What the tensors of one test may take in all: its inputs, params and every op's result,
/// in the test graph and its expected graphs (1 GiB). Sema refuses a test above it, before
/// anything is allocated; unit tests of rules need kilobytes.
inline constexpr int64_t kMaxTestTensorBytes = int64_t{1} << 30;

struct TestGraph {
  std::unique_ptr<Graph> graph;
  /// The get_attr targets of `param`s without values (random ones). In an expected graph these
  /// stand for "any constant of this type".
  std::set<std::string> random_constants;
};

/// The seed of test `name` for base seed `base` (the CLI's --seed): each test gets its own
/// values, which do not depend on which other tests run.
uint64_t rule_test_seed(std::string_view name, uint64_t base);

/// Builds the graph of a checked test. Random params take uniform values in [-1, 1) (`positive`
/// ones in [0.5, 1.5), away from 0 so rsqrt(var) stays tame), from `seed` and the param's name.
/// Returns nullopt after reporting to `diags` (at the construct's source range) what sema let
/// through but a graph cannot hold, such as a value that does not fit its dtype.
[[nodiscard]] std::optional<TestGraph> build_test_graph(const ast::TestDecl& test, uint64_t seed,
                                                        DiagnosticEngine& diags);

/// Builds the graph of `expected`, an `expect graph { … }` block of `test`: the test graph's
/// inputs (same names, types and order), then the block's params and ops.
[[nodiscard]] std::optional<TestGraph> build_expected_graph(const ast::TestDecl& test,
                                                            const ast::GraphBlock& expected,
                                                            uint64_t seed, DiagnosticEngine& diags);

}  // namespace graft::dsl
