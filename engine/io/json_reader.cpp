// The strict reader. What it accepts and the values it gives follow nlohmann's lexer (3.11):
// whitespace is space, tab, LF and CR; a string holds no byte below 0x20 and only well-formed
// UTF-8 (no overlong form, surrogate or code point above U+10FFFF), and a \u escape of a
// surrogate must be a high one followed by a low one; an integer that fits int64 (negative) or
// uint64 (otherwise) stays one and any other number is a double, which must be finite.
#include "engine/io/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/io/json_limits.h"

namespace graft {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// The length of the well-formed UTF-8 sequence of 2-4 bytes at `p` (before `end`), or 0.
size_t utf8_sequence(const unsigned char* p, const unsigned char* end) {
  auto in = [&](size_t i, unsigned lo, unsigned hi) {
    return p + i < end && p[i] >= lo && p[i] <= hi;
  };
  unsigned c = p[0];
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) {
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  }
  if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

}  // namespace

std::optional<std::string_view> JsonKeySet::insert(std::string_view key, bool stable) {
  if (index_.empty()) {
    for (std::string_view k : keys_) {
      if (same_key(k, key)) return std::nullopt;
    }
  } else if (index_.count(key) != 0) {
    return std::nullopt;
  }
  if (!stable) key = owned_.emplace_back(key);
  keys_.push_back(key);
  if (!index_.empty()) {
    index_.insert(key);
  } else if (keys_.size() > kLinear) {
    index_.insert(keys_.begin(), keys_.end());
  }
  return key;
}

void JsonKeySet::clear() {
  keys_.clear();
  if (!index_.empty()) index_.clear();
  if (!owned_.empty()) owned_.clear();
}

bool JsonReader::fail(const char* reason) {
  error_offset_ = pos_;
  error_reason_ = reason;
  return false;
}

void JsonReader::skip_whitespace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

bool JsonReader::begin_document() {
  if (pos_ == 0 && !text_.empty() && static_cast<unsigned char>(text_[0]) == 0xEF) {
    if (text_.substr(0, 3) != "\xEF\xBB\xBF") return fail("an incomplete byte order mark");
    pos_ = 3;
  }
  skip_whitespace();
  return true;
}

bool JsonReader::end_document() {
  skip_whitespace();
  return pos_ == text_.size() || fail("text after the JSON value");
}

char JsonReader::peek() {
  skip_whitespace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool JsonReader::consume(char c) {
  if (peek() != c) return false;
  ++pos_;
  return true;
}

bool JsonReader::enter_object() {
  if (!consume('{')) return fail("expected '{'");
  if (open_objects_ == key_sets_.size()) key_sets_.emplace_back();
  key_sets_[open_objects_++].clear();
  return true;
}

bool JsonReader::read_key(std::string_view* key, size_t* quote) {
  if (peek() != '"') return fail("expected a key");
  *quote = pos_++;
  size_t begin = pos_;
  bool escaped = false;
  scratch_.clear();
  if (!scan_string(scratch_, &escaped)) return false;
  std::string_view text =
      escaped ? std::string_view(scratch_) : text_.substr(begin, pos_ - 1 - begin);
  std::optional<std::string_view> stored = key_sets_[open_objects_ - 1].insert(text, !escaped);
  if (!stored) return fail("a key given twice");
  *key = *stored;
  return consume(':') || fail("expected ':'");
}

bool JsonReader::read_value(JsonTape& tape, int depth) {
  switch (peek()) {
    case '{':
      return read_container(tape, depth, true);
    case '[':
      return read_container(tape, depth, false);
    case '"':
      return read_string(tape);
    case 't':
      return read_literal(tape, "true", JsonType::kBool, true);
    case 'f':
      return read_literal(tape, "false", JsonType::kBool, false);
    case 'n':
      return read_literal(tape, "null", JsonType::kNull, false);
    default:
      return read_number(tape);
  }
}

bool JsonReader::read_container(JsonTape& tape, int depth, bool object) {
  if (depth + 1 > kMaxJsonDepth) return fail("nested too deep");
  uint32_t index = tape.size();
  tape.push(object ? JsonType::kObject : JsonType::kArray, pos_);
  bool ok = object ? read_members(tape, depth + 1) : read_elements(tape, depth + 1);
  if (!ok) return false;
  tape.entry(index).next = tape.size();
  return true;
}

bool JsonReader::read_members(JsonTape& tape, int depth) {
  uint32_t index = tape.size() - 1;
  if (!enter_object()) return false;
  uint32_t count = 0;
  if (!consume('}')) {
    size_t keys = open_objects_ - 1;  // an index: nested objects may grow key_sets_
    do {
      if (peek() != '"') return fail("expected a key");
      uint32_t key = tape.size();
      if (!read_string(tape)) return false;
      const JsonTape::Entry& k = tape.entry(key);
      if (!key_sets_[keys].insert(tape.string_at(k), !k.flag)) return fail("a key given twice");
      if (!consume(':')) return fail("expected ':'");
      if (!read_value(tape, depth)) return false;
      ++count;
    } while (consume(','));
    if (!consume('}')) return fail("expected ',' or '}'");
  }
  leave_object();
  tape.entry(index).count = count;
  return true;
}

bool JsonReader::read_elements(JsonTape& tape, int depth) {
  uint32_t index = tape.size() - 1;
  ++pos_;  // '['
  uint32_t count = 0;
  if (!consume(']')) {
    do {
      if (!read_value(tape, depth)) return false;
      ++count;
    } while (consume(','));
    if (!consume(']')) return fail("expected ',' or ']'");
  }
  tape.entry(index).count = count;
  return true;
}

bool JsonReader::read_string(JsonTape& tape) {
  uint32_t index = tape.size();
  tape.push(JsonType::kString, pos_);
  size_t begin = ++pos_;
  std::string& arena = tape.arena();
  size_t arena_begin = arena.size();
  bool escaped = false;
  if (!scan_string(arena, &escaped)) return false;
  JsonTape::Entry& e = tape.entry(index);
  e.next = index + 1;
  e.flag = escaped;
  e.str.begin = static_cast<uint32_t>(escaped ? arena_begin : begin);
  e.str.size = static_cast<uint32_t>(escaped ? arena.size() - arena_begin : pos_ - 1 - begin);
  return true;
}

bool JsonReader::scan_string(std::string& out, bool* escaped) {
  const auto* p = reinterpret_cast<const unsigned char*>(text_.data()) + pos_;
  const auto* end = reinterpret_cast<const unsigned char*>(text_.data()) + text_.size();
  const unsigned char* copied = p;  // once escaped: the bytes before p not yet in `out`
  bool any = false;
  while (true) {
    // The common case: printable ASCII up to the closing quote.
    while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') ++p;
    if (p == end) {
      pos_ = text_.size();
      return fail("an unterminated string");
    }
    unsigned char c = *p;
    if (c == '"') {
      if (any) out.append(reinterpret_cast<const char*>(copied), p - copied);
      pos_ = static_cast<size_t>(p + 1 - reinterpret_cast<const unsigned char*>(text_.data()));
      *escaped = any;
      return true;
    }
    if (c < 0x20) {
      pos_ = static_cast<size_t>(p - reinterpret_cast<const unsigned char*>(text_.data()));
      return fail("a control character in a string");
    }
    if (c >= 0x80) {
      size_t n = utf8_sequence(p, end);
      if (n == 0) {
        pos_ = static_cast<size_t>(p - reinterpret_cast<const unsigned char*>(text_.data()));
        return fail("ill-formed UTF-8 in a string");
      }
      p += n;
      continue;
    }
    // A backslash: from here on the string is decoded into `out`.
    any = true;
    out.append(reinterpret_cast<const char*>(copied), p - copied);
    pos_ = static_cast<size_t>(p - reinterpret_cast<const unsigned char*>(text_.data()));
    if (!decode_escape(out)) return false;
    p = reinterpret_cast<const unsigned char*>(text_.data()) + pos_;
    copied = p;
  }
}

bool JsonReader::decode_escape(std::string& out) {
  auto hex4 = [&](size_t at) -> int {
    if (at + 4 > text_.size()) return -1;
    int v = 0;
    for (size_t i = at; i < at + 4; ++i) {
      int h = hex_value(text_[i]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  };
  if (pos_ + 1 >= text_.size()) return fail("an unterminated string");
  char c = text_[pos_ + 1];
  const char* simple = std::strchr("\"\\/bfnrt", c);
  if (c != '\0' && simple != nullptr) {
    static constexpr char kDecoded[] = "\"\\/\b\f\n\r\t";
    out += kDecoded[simple - "\"\\/bfnrt"];
    pos_ += 2;
    return true;
  }
  if (c != 'u') return fail("an invalid escape");
  int cp = hex4(pos_ + 2);
  if (cp < 0) return fail("an invalid \\u escape");
  pos_ += 6;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("a low surrogate without a high one");
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    int low = text_.substr(pos_, 2) == "\\u" ? hex4(pos_ + 2) : -1;
    if (low < 0xDC00 || low > 0xDFFF) return fail("a high surrogate without a low one");
    pos_ += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(out, static_cast<uint32_t>(cp));
  return true;
}

bool JsonReader::read_number(JsonTape& tape) {
  size_t begin = pos_;
  bool negative = pos_ < text_.size() && text_[pos_] == '-';
  if (negative) ++pos_;
  auto digits = [&] {
    size_t from = pos_;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    return pos_ > from;
  };
  if (pos_ < text_.size() && text_[pos_] == '0') {
    ++pos_;
  } else if (pos_ >= text_.size() || !is_digit(text_[pos_]) || !digits()) {
    return fail("expected a value");
  }
  bool integer = true;
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (!digits()) return fail("expected a digit after '.'");
    integer = false;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (!digits()) return fail("expected a digit in the exponent");
    integer = false;
  }
  std::string_view token = text_.substr(begin, pos_ - begin);
  JsonTape::Entry& e = tape.push(JsonType::kFloat, begin);
  e.next = tape.size();
  if (integer) {
    // As strtoll / strtoull: an integer that does not fit becomes a double below.
    uint64_t magnitude = 0;
    auto [end, ec] =
        std::from_chars(token.data() + (negative ? 1 : 0), token.data() + token.size(), magnitude);
    if (ec == std::errc() && !negative) {
      e.type = JsonType::kUnsigned;
      e.u = magnitude;
      return true;
    }
    if (ec == std::errc() && magnitude <= uint64_t{1} << 63) {
      e.type = JsonType::kInt;
      e.i = static_cast<int64_t>(0 - magnitude);
      return true;
    }
  }
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), e.d);
  if (ec != std::errc()) e.d = std::strtod(std::string(token).c_str(), nullptr);  // underflow
  return std::isfinite(e.d) || fail("a number beyond the range of double");
}

bool JsonReader::read_literal(JsonTape& tape, std::string_view word, JsonType type, bool value) {
  if (text_.substr(pos_, word.size()) != word) return fail("expected a value");
  JsonTape::Entry& e = tape.push(type, pos_);
  e.next = tape.size();
  e.flag = value;
  pos_ += word.size();
  return true;
}

}  // namespace graft
