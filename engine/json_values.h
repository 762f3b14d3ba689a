// JSON <-> attribute values, shared by the model loader and writer so that what one writes the
// other reads back unchanged (ints stay ints, floats stay floats: torch keeps 1 and 1.0 apart).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/attr.h"

namespace graft {

/// null, bool, int, float, string, a list of ints, or a list of numbers (-> float list).
/// Returns nullopt and sets `error` for anything else (objects, nested or mixed lists).
std::optional<AttrValue> attr_from_json(const nlohmann::json& j, std::string* error);
nlohmann::json attr_to_json(const AttrValue& value);

/// RFC 6901 escaping of one JSON pointer token ('~' -> "~0", '/' -> "~1").
std::string json_pointer_token(const std::string& key);

}  // namespace graft
