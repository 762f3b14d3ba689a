// torch.arange's length, shared by arange's shape function and its reference kernel so that
// both refuse the same ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/ir/attr.h"

namespace graft {

/// `value` as the result's dtype takes it: for an integral result (`integral`) truncated
/// toward zero as torch converts arange's bounds to int64 (arange(0, 5.5, dtype=int64) has 5
/// values), else unchanged; nullopt after setting `error` if the int64 does not hold it.
std::optional<Scalar> arange_bound(const Scalar& value, bool integral, std::string* error);

/// ceil((end - start) / step) as torch 1.13 computes it from bounds arange_bound has
/// converted, or nullopt after setting `error` ("step must be nonzero", a bound that is not
/// finite, a step whose sign does not lead from start to end, or a length past int64).
std::optional<int64_t> arange_length(const Scalar& start, const Scalar& end, const Scalar& step,
                                     std::string* error);

}  // namespace graft
