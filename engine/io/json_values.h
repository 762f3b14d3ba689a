// JSON <-> attribute values, shared by the model loader and writer so that what one writes the
// other reads back unchanged (ints stay ints, floats stay floats: torch keeps 1 and 1.0 apart).
// JSON has no infinities or NaN, so a float that is not finite is the string "inf", "-inf" or
// "nan" (docs/decisions/0007-non-finite-floats.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/ir/attr.h"

namespace graft {

/// Appended to the error for a string where a float is expected.
inline constexpr const char* kNonfiniteHint =
    " (model.json writes a float that is not finite as \"inf\", \"-inf\" or \"nan\")";

/// The float "inf", "-inf" or "nan" stand for; nullopt for any other string.
std::optional<double> nonfinite_from_string(std::string_view s);

/// null, bool, int, float, string, a list of ints, or a list of numbers (-> float list).
/// Returns nullopt and sets `error` for anything else (objects, nested or mixed lists).
std::optional<AttrValue> attr_from_json(const nlohmann::json& j, std::string* error);
/// The same, for an attribute declared `expected`: where that is float or Scalar, the strings
/// "inf", "-inf" and "nan" are those floats and any other string is an error.
std::optional<AttrValue> attr_from_json(const nlohmann::json& j, AttrType expected,
                                        std::string* error);
/// A `SymInt[]` attribute's list: ints and symbol names ([-1, "T", 12, 64]), as SymInts when
/// it names a symbol and as an int list when not. nullopt, with `error` set and `*bad_item`
/// the index of the offending item (or -1 when `j` is no list), for anything else.
std::optional<AttrValue> sym_ints_from_json(const nlohmann::json& j, std::string* error,
                                            int64_t* bad_item);
/// A float that is not finite becomes its string, so that attr_from_json reads it back.
nlohmann::json attr_to_json(const AttrValue& value);

/// A scalar operand (`x * 0.5`, `x + 1`, `"-inf"`). graft computes with scalars as float64, so
/// an integer is accepted only if it fits int64 and float64 holds it exactly (every integer up
/// to 2^53, larger ones when they are multiples of a power of two); anything else would be
/// silently changed, so nullopt and `error` set. A string other than the three non-finite
/// floats' is an error too.
std::optional<Scalar> scalar_from_json(const nlohmann::json& j, std::string* error);
/// The JSON of a scalar operand: an integer for an integer scalar, a float (or its string)
/// otherwise. nullopt for an integer outside int64, which JSON cannot hold exactly.
std::optional<nlohmann::json> scalar_to_json(const Scalar& s);

/// Appends `s` as nlohmann's dump() writes a JSON string: printable ASCII as it is, the rest
/// escaped by nlohmann itself, which throws on invalid UTF-8 unless `replace_invalid` (then
/// U+FFFD stands for it).
void append_json_string(std::string& out, std::string_view s, bool replace_invalid = false);

/// Appends an integer as nlohmann's dump() writes one.
void append_json_integer(std::string& out, int64_t i);
void append_json_integer(std::string& out, uint64_t u);

/// RFC 6901 escaping of one JSON pointer token ('~' -> "~0", '/' -> "~1").
std::string json_pointer_token(const std::string& key);

}  // namespace graft
