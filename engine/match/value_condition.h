// `where value(w) == 0` and its kin: whether every element of a constant satisfies a
// comparison with numbers. Elements are read in place (a weights file's pages load as they are
// touched) and the scan stops at the first element that fails, so a condition that fails costs
// little however big the tensor.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/ir/constants.h"
#include "engine/match/pattern.h"

namespace graft {

/// An element that fails the comparison: its flat index and its value.
struct ElementCounterexample {
  int64_t index = 0;
  double value = 0;
};

/// nullopt when every element `x` of `tensor` satisfies `x op rhs` (`rhs`: a number, within
/// its tolerance for `==` and `!=`; for `in`, a set of numbers or a range). An empty tensor
/// satisfies any comparison. Integers and bools are compared as their numeric values.
std::optional<ElementCounterexample> first_failing_element(const ConstantTensor& tensor, CmpOp op,
                                                           const Term& rhs);

}  // namespace graft
