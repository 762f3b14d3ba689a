// A JSON value as a flat array of entries (a "tape"), what the model loader reads one node at a
// time instead of building a document tree: strings are views into the text, so reading a node
// allocates nothing once the tape has grown to the largest node. JsonRef is a read-only view of
// one value with the questions the loader asks (nlohmann::json's names and semantics), and
// to_json() converts a value for the rest (messages quoting it, attribute values).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace graft {

/// nlohmann's value types: a non-negative integer is kUnsigned, a negative one kInt, and an
/// integer beyond 64 bits a kFloat, as nlohmann parses them.
enum class JsonType : uint8_t { kNull, kBool, kInt, kUnsigned, kFloat, kString, kArray, kObject };

class JsonRef;

/// Whether two keys are equal: an inline loop, as keys are short and most differ in their
/// first byte.
inline bool same_key(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

class JsonTape {
 public:
  struct Span {
    uint32_t begin, size;  // in the text, or in the arena
  };
  struct Entry {
    JsonType type = JsonType::kNull;
    bool flag = false;   // kBool: the value; kString: the text is in the arena (it had escapes)
    uint32_t at = 0;     // offset of the value's first byte in the text (a string's '"')
    uint32_t next = 0;   // index one past the value's last entry
    uint32_t count = 0;  // kArray: elements; kObject: members (each a key entry, then a value)
    union {
      int64_t i;
      uint64_t u;
      double d;
      Span str;
    };
    Entry() : i(0) {}
  };

  /// A tape over `text`, which must outlive it and every JsonRef into it.
  explicit JsonTape(std::string_view text = {}) : text_(text) {}

  void clear() {
    entries_.clear();
    arena_.clear();
  }
  bool empty() const { return entries_.empty(); }
  /// The first value on the tape.
  JsonRef root() const;

  // ** writing (JsonReader) **
  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
  Entry& push(JsonType type, size_t at) {
    Entry& e = entries_.emplace_back();
    e.type = type;
    e.at = static_cast<uint32_t>(at);
    return e;
  }
  Entry& entry(uint32_t index) { return entries_[index]; }
  const Entry& entry(uint32_t index) const { return entries_[index]; }
  std::string& arena() { return arena_; }
  std::string_view text() const { return text_; }
  std::string_view string_at(const Entry& e) const {
    return std::string_view(e.flag ? arena_ : text_).substr(e.str.begin, e.str.size);
  }

 private:
  std::string_view text_;
  std::vector<Entry> entries_;
  std::string arena_;  // unescaped strings
};

class JsonRef {
 public:
  JsonRef() = default;
  JsonRef(const JsonTape* tape, uint32_t index) : tape_(tape), index_(index) {}

  JsonType type() const { return e().type; }
  bool is_null() const { return type() == JsonType::kNull; }
  bool is_boolean() const { return type() == JsonType::kBool; }
  bool is_string() const { return type() == JsonType::kString; }
  bool is_array() const { return type() == JsonType::kArray; }
  bool is_object() const { return type() == JsonType::kObject; }
  bool is_number() const {
    return type() == JsonType::kInt || type() == JsonType::kUnsigned || type() == JsonType::kFloat;
  }
  bool is_number_integer() const {
    return type() == JsonType::kInt || type() == JsonType::kUnsigned;
  }
  /// nlohmann's type_name(): "null", "boolean", "number", "string", "array", "object".
  const char* type_name() const;
  /// nlohmann's size(): elements or members; 0 for null, 1 for any other scalar.
  size_t size() const;
  bool empty() const { return size() == 0; }

  bool boolean() const { return e().flag; }
  std::string_view str() const { return tape_->string_at(e()); }
  /// The number as nlohmann's get<int64_t>() gives it (a float is truncated, an unsigned wraps).
  int64_t int64() const;
  double number() const;  // as get<double>()
  uint64_t unsigned_value() const { return e().u; }
  /// Offset of the value's first byte in the text.
  size_t offset() const { return e().at; }
  /// The tape the value is on.
  const JsonTape& tape() const { return *tape_; }

  /// The member `key` of an object; nullopt when absent (or when this is not an object).
  std::optional<JsonRef> find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key).has_value(); }

  /// Elements of an array, or members of an object in the order they are written.
  class Iterator {
   public:
    Iterator(const JsonTape* tape, uint32_t index, bool members)
        : tape_(tape), index_(index), members_(members) {}
    /// An element, or a member's value.
    JsonRef value() const { return JsonRef(tape_, members_ ? index_ + 1 : index_); }
    JsonRef operator*() const { return value(); }
    /// A member's key.
    std::string_view key() const { return tape_->string_at(tape_->entry(index_)); }
    Iterator& operator++() {
      index_ = tape_->entry(members_ ? index_ + 1 : index_).next;
      return *this;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    const JsonTape* tape_;
    uint32_t index_;
    bool members_;
  };
  Iterator begin() const { return Iterator(tape_, index_ + 1, is_object()); }
  Iterator end() const { return Iterator(tape_, e().next, is_object()); }
  /// Element `i` of an array (a walk: iterate when visiting all).
  JsonRef at(size_t i) const;
  /// An object's keys in nlohmann's order (sorted), each with its value.
  std::vector<std::pair<std::string_view, JsonRef>> sorted_members() const;

  nlohmann::json to_json() const;
  /// nlohmann's dump() of the value.
  std::string dump() const { return to_json().dump(); }

 private:
  const JsonTape::Entry& e() const { return tape_->entry(index_); }

  const JsonTape* tape_ = nullptr;
  uint32_t index_ = 0;
};

inline JsonRef JsonTape::root() const { return JsonRef(this, 0); }

}  // namespace graft
