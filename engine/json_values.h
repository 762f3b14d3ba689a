// JSON <-> attribute values, shared by the model loader and writer so that what one writes the
// other reads back unchanged (ints stay ints, floats stay floats: torch keeps 1 and 1.0 apart).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/attr.h"

namespace graft {

/// null, bool, int, float, string, a list of ints, or a list of numbers (-> float list).
/// Returns nullopt and sets `error` for anything else (objects, nested or mixed lists).
std::optional<AttrValue> attr_from_json(const nlohmann::json& j, std::string* error);
nlohmann::json attr_to_json(const AttrValue& value);

/// How deeply JSON input may nest. nlohmann's parser and destructor are iterative, but copying,
/// comparing and dumping a value recurse once per level, so a file of a million '[' would
/// overflow the stack; model files nest about 6 levels deep.
inline constexpr int kMaxJsonDepth = 128;
/// The byte offset of the first '[' or '{' (outside strings) nested deeper than `max_depth`,
/// or nullopt. Checked before parsing, so it needs no valid JSON.
std::optional<size_t> find_excess_nesting(std::string_view text, int max_depth = kMaxJsonDepth);

/// RFC 6901 escaping of one JSON pointer token ('~' -> "~0", '/' -> "~1").
std::string json_pointer_token(const std::string& key);

}  // namespace graft
