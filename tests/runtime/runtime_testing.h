// Helpers for runtime tests: a small graph builder with random constants, and the cross-check
// every kernel test uses — compile and run the graph, run the reference interpreter on the
// same inputs, compare.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "eval/reference.h"
#include "runtime/executable.h"

namespace graft::testing {

class GraphBuilder {
 public:
  GraphBuilder() : graph_(std::make_unique<Graph>()) {}
  Node* input(const std::string& name, Shape shape, DType dtype = DType::kFloat32);
  /// An int64 constant holding `values`.
  Node* int_constant(const std::string& name, Shape shape, const std::vector<int64_t>& values);
  /// A constant of uniform random values in [lo, hi).
  Node* constant(const std::string& name, Shape shape, uint64_t seed, float lo = -1, float hi = 1);
  /// Adds `op` with positional `inputs` (Input::none() for an absent optional operand) and
  /// the attributes in `attrs` (the rest default). Fails the test if the op is unknown or an
  /// attribute does not exist or does not fit.
  Node* call(const std::string& op, std::vector<Input> inputs,
             const std::map<std::string, AttrValue>& attrs = {});
  void output(const std::vector<Node*>& outputs);
  Graph& graph() { return *graph_; }
  std::unique_ptr<Graph> take() { return std::move(graph_); }

 private:
  std::unique_ptr<Graph> graph_;
};

inline Input in(Node* n) { return Input::of(n); }
inline Input scalar(double v) { return Input::of(Scalar{v, false}); }

/// Random inputs for `graph`'s placeholders (their declared, concrete shapes and dtypes;
/// int64 ones in [0, int_bound)).
std::vector<eval::Tensor> random_inputs(const Graph& graph, uint64_t seed, float lo = -1,
                                           float hi = 1, int64_t int_bound = 10);

/// Compiles and runs `graph` with `options`, runs the reference on the same inputs and
/// returns "" if every output is allclose(rtol, atol), else a report (diagnostics, or the
/// worst difference per output). `exe_out` receives the executable if wanted.
std::string check_against_reference(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                                    const runtime::CompileOptions& options = {},
                                    double rtol = 1e-4, double atol = 1e-4,
                                    std::unique_ptr<runtime::Executable>* exe_out = nullptr);

/// Runs `check_against_reference` for blocked and plain layouts and with memory reuse and
/// in-place off; returns the first failure, labelled.
std::string check_all_modes(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                            double rtol = 1e-4, double atol = 1e-4);

}  // namespace graft::testing
