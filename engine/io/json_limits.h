// Limits on the JSON graft reads (model.json, safetensors headers). nlohmann::json parses
// iteratively, but copying, comparing and destroying a value recurse once per nesting level:
// "[[[[…]]]]" a million deep would overflow the stack after a successful parse. Real files
// nest a handful of levels, so a depth far above that costs nothing and keeps every later
// operation safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace graft {

/// The deepest '[' / '{' nesting accepted.
inline constexpr int kMaxJsonDepth = 256;
/// The largest model.json read (1 GiB): graphs of a million nodes take ~200 MiB, and the
/// loader holds the text while it builds the graph. Weights belong in the safetensors file.
inline constexpr int64_t kMaxModelJsonBytes = int64_t{1} << 30;

/// The byte offset of the first '[' or '{' that opens level `max_depth + 1` (strings are
/// skipped), or npos if `text` nests no deeper than `max_depth`.
size_t find_excess_nesting(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace graft
