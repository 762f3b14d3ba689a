// Test helper of the eval tests: one op folded on constant operands by the reference constant
// folder, with shape inference first, and the result read back as plain vectors.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/constants.h"
#include "engine/ir/graph.h"

namespace graft::testing {

ConstantTensor int_constant(Shape shape, const std::vector<int64_t>& values);
ConstantTensor bool_constant(Shape shape, const std::vector<int>& values);
ConstantTensor float_constant(Shape shape, const std::vector<float>& values);

/// The folded result, or the error (shape inference's or the folder's).
struct Folded {
  std::optional<ConstantTensor> value;
  std::string error;

  Shape shape() const;
  std::vector<int64_t> i64() const;
  std::vector<int> b8() const;
  std::vector<float> f32() const;
};

/// Folds `op` on `operands` with `attrs` (the others default).
Folded fold(const std::string& op, const std::vector<ConstantTensor>& operands,
            const std::map<std::string, AttrValue>& attrs = {});

}  // namespace graft::testing
