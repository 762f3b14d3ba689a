// Hash maps keyed by std::string that can be queried with a std::string_view (heterogeneous
// lookup), so a lookup by a name the caller holds as a view builds no string.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/support/hash.h"

namespace graft {

struct StringHash {
  using is_transparent = void;
  // Not noexcept on purpose: libstdc++ then caches each key's hash in its node, so a rehash or
  // an erase never hashes a stored string again.
  size_t operator()(std::string_view s) const { return hash_string(s); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

}  // namespace graft
