// Calls an op's shape function the way shape inference does, from short text: operand types
// as "f32[N, 3, 8, 8]" ("?" is the unknown dim, other names are symbols), numbers for scalar
// literals, nullptr for an absent operand, and attributes by name (coerced like the loader's).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/ops/op_schema.h"

namespace graft::testing {

/// One operand: a tensor type, a scalar literal, or None.
struct Arg {
  std::optional<TensorType> type;
  std::optional<Scalar> scalar;

  Arg(std::nullptr_t) {}                                               // None
  Arg(const char* type_text);                                          // "f32[2, 3]"
  Arg(TensorType t) : type(std::move(t)) {}
  Arg(int value) : scalar(Scalar{static_cast<double>(value), true}) {}  // 2
  Arg(double value) : scalar(Scalar{value, false}) {}                  // 0.5
};

/// "f32[N, 3]" -> float32 with dims [N, 3]; fails the current test if malformed.
TensorType parse_type(const std::string& text);

struct InferResult {
  std::optional<TensorType> type;
  std::string error;
  /// "float32[N, 64, 112, 112]", or "error: <message>".
  std::string str() const;
};

/// Runs `op`'s shape function on `args` (one per operand, the variadic operand's tensors
/// last) and `attrs` (the rest take their defaults), then the size limit of shape inference
/// (within_size_limit). The op must exist and every attribute must coerce to its declared
/// type; the test fails otherwise.
InferResult infer(const std::string& op, const std::vector<Arg>& args,
                  const std::vector<std::pair<std::string, AttrValue>>& attrs = {});

}  // namespace graft::testing
