// torch's slice bounds, shared by slice's shape function and its reference kernel so that
// both clamp the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace graft {

/// The [start, end) that slice(start, end) of a dim of `size` covers, Python's way: None is the
/// dim's start or end, negative bounds count from the end, both are clamped to [0, size], and
/// an end before the start is the start (an empty slice).
std::pair<int64_t, int64_t> slice_bounds(std::optional<int64_t> start, std::optional<int64_t> end,
                                         int64_t size);

}  // namespace graft
