// A strict JSON reader that reads a document piece by piece: the model loader walks the top-level
// object and the "nodes" array itself and reads one node at a time into a JsonTape, so no tree
// of the whole document is ever built. It accepts exactly what parse_strict_json accepts (JSON
// as nlohmann parses it, no NUL byte, no key twice in an object, at most kMaxJsonDepth levels)
// and gives the same values. It says only *that* the text is bad; the caller asks
// parse_strict_json for the message, so every JSON error reads as it always has.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engine/io/json_tape.h"

namespace graft {

/// The keys of one object so far, to find one given twice.
class JsonKeySet {
 public:
  JsonKeySet() = default;
  // keys_ views the strings of owned_, so a copy would view another set's buffers.
  JsonKeySet(const JsonKeySet&) = delete;
  JsonKeySet& operator=(const JsonKeySet&) = delete;

  /// Adds `key`, copied unless `stable` (a view into the text); returns the stored view, or
  /// nullopt if the key was there already.
  std::optional<std::string_view> insert(std::string_view key, bool stable);
  void clear();

 private:
  static constexpr size_t kLinear = 16;  // objects up to this size are searched linearly
  std::vector<std::string_view> keys_;
  std::unordered_set<std::string_view> index_;  // filled once keys outgrow kLinear
  std::deque<std::string> owned_;               // keys whose text had escapes
};

class JsonReader {
 public:
  /// Reads `text` from `pos`; the text must outlive the reader and the tapes it fills.
  explicit JsonReader(std::string_view text, size_t pos = 0) : text_(text), pos_(pos) {}

  /// Skips a UTF-8 byte order mark at the start of the text (nlohmann does) and whitespace.
  bool begin_document();
  /// Whether only whitespace is left.
  bool end_document();

  /// The next character after whitespace ('\0' at the end of the text).
  char peek();
  /// Consumes `c` if it is the next character after whitespace.
  bool consume(char c);
  /// '{' after whitespace: opens an object, whose keys read_key() then reads.
  bool enter_object();
  /// A key of the innermost open object and its ':'; false also when the object has the key
  /// already. `key` stays valid until the object is left; `quote` receives the offset of its
  /// opening quote.
  bool read_key(std::string_view* key, size_t* quote);
  void leave_object() { --open_objects_; }
  /// Appends the next value to `tape`; `depth` is the number of arrays and objects around it.
  bool read_value(JsonTape& tape, int depth);

  size_t position() const { return pos_; }
  /// Where reading stopped, and why, once a call returned false.
  size_t error_offset() const { return error_offset_; }
  const std::string& error_reason() const { return error_reason_; }

 private:
  bool fail(const char* reason);
  void skip_whitespace();
  bool read_container(JsonTape& tape, int depth, bool object);
  bool read_members(JsonTape& tape, int depth);
  bool read_elements(JsonTape& tape, int depth);
  /// A string at '"' into `tape` (a key or a value).
  bool read_string(JsonTape& tape);
  /// The characters after '"' up to the closing quote. If there is an escape, the decoded
  /// string is appended to `out` and `escaped` set; otherwise it is the text just read.
  bool scan_string(std::string& out, bool* escaped);
  bool decode_escape(std::string& out);
  bool read_number(JsonTape& tape);
  bool read_literal(JsonTape& tape, std::string_view word, JsonType type, bool value);

  std::string_view text_;
  size_t pos_;
  size_t error_offset_ = 0;
  std::string error_reason_;
  std::string scratch_;               // a key with escapes, decoded
  // One per open object, kept with their buffers; a deque, so that opening a nested object
  // never relocates the sets (and the key views) of the objects around it.
  std::deque<JsonKeySet> key_sets_;
  size_t open_objects_ = 0;
};

}  // namespace graft
