// Strict JSON parsing for the files graft reads (model.json, safetensors headers). nlohmann's
// parser is lenient in two ways that let a file mean something other than what it shows: a NUL
// byte ends the input (whatever follows is ignored), and a key given twice in one object keeps
// the last value silently. Here both are errors with the byte offset where they occur.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace graft {

struct JsonError {
  enum class Kind {
    kSyntax,        // nlohmann's parse error (also a number beyond double range)
    kNul,           // a NUL byte
    kDuplicateKey,  // a key given twice in one object
  };
  Kind kind = Kind::kSyntax;
  /// Byte offset in the text: where the syntax error was found, of the NUL, of the second
  /// occurrence's opening quote. npos when nlohmann gives no position.
  size_t offset = std::string::npos;
  /// kSyntax: nlohmann's message without its "[json.exception.…] " tag ("parse error at line 1,
  /// column 8: syntax error while parsing value - …"); `reason` is the part after the position.
  std::string message;
  std::string reason;
  /// kDuplicateKey: the key, the JSON pointer of its object ("" for the top level) and the
  /// offset of the first occurrence's opening quote.
  std::string key;
  std::string object_pointer;
  size_t first_offset = 0;
};

/// Parses `text` as exactly one JSON document (trailing whitespace only), rejecting NUL bytes
/// and duplicate keys as well as everything nlohmann rejects. Returns nullopt and fills `error`
/// on the first problem. `top_level_keys`, if given, receives the offset of the opening quote
/// of each key of the top-level object, so later checks of a value can give its line:col.
/// Nesting is not limited here; callers check find_excess_nesting (json_limits.h) first.
std::optional<nlohmann::json> parse_strict_json(std::string_view text, JsonError* error,
                                                std::map<std::string, size_t>* top_level_keys =
                                                    nullptr);

/// 1-based line and column of byte `offset` in `text` (columns count bytes).
std::pair<size_t, size_t> json_line_col(std::string_view text, size_t offset);

}  // namespace graft
