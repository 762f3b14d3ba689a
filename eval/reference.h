// Reference kernels: slow, obviously-correct plain loops for every op the runtime runs, on
// dense row-major tensors (float32; any dtype for data movement), following torch's semantics
// (broadcasting, ceil_mode, count_include_pad, matmul's 1-d promotions, …). They are the oracle the oneDNN path is
// tested against, and the runtime's fallback for the few cases oneDNN has no primitive for.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/support/diagnostics.h"
#include "eval/tensor.h"

namespace graft::eval {

/// One operand of a reference kernel: a tensor, a scalar literal, or neither (None).
struct RefOperand {
  const Tensor* tensor = nullptr;
  std::optional<double> scalar;
};

/// True if the reference implements op `op`: its family has a reference kernel.
bool has_reference(const OpSchema& op);

/// Computes call_function node `node` on `operands` (one per node input) into `out`, which
/// has the node's concrete type. Returns false and sets `error` for an unsupported op or case.
bool reference_op(const Node& node, const std::vector<RefOperand>& operands, Tensor& out,
                  std::string* error);

/// Perturbs every float32 result v of an op by at most `relative` * max(|v|, 1), drawn from
/// `seed` (Monte Carlo arithmetic): how far the outputs then move shows how much the graph
/// amplifies rounding, which tells an ill-conditioned graph from a wrong kernel. Below 1 the
/// perturbation is absolute, as a kernel's error is for a result that cancels to near 0
/// (log_softmax over one element is 0 in torch, 1e-6 in oneDNN: a later log tells them apart).
struct RoundingNoise {
  double relative = 0;
  uint64_t seed = 1;
  /// The same for float16 and bfloat16 results, in units of their precision (dtype_epsilon):
  /// 2 perturbs by up to two units (0 leaves them as computed).
  double half_units = 0;
};

/// Interprets `graph` with the reference kernels; the inputs' shapes bind the placeholders'.
/// Returns nullopt after reporting to `diags` if shapes do not fit or an op is unsupported.
[[nodiscard]] std::optional<std::vector<Tensor>> run_reference(
    const Graph& graph, const std::vector<Tensor>& inputs, DiagnosticEngine& diags,
    const std::optional<RoundingNoise>& noise = std::nullopt);

}  // namespace graft::eval
