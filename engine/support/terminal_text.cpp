// Escaping of user text for terminals (see terminal_text.h): a UTF-8 decoder that copies
// printable characters and spells out the rest.
#include "engine/support/terminal_text.h"

#include <cstdint>

namespace graft {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_byte_escape(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

void append_code_point_escape(std::string& out, uint32_t cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
}

/// The length of the well-formed UTF-8 sequence at the start of `s` (2 to 4) and its code
/// point, or 0 when the bytes there are not one (RFC 3629's table: no overlong forms, no
/// surrogates, nothing above U+10FFFF).
int decode_multibyte(std::string_view s, uint32_t* cp) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(0);
  int length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  if (lead < 0xc2 || lead > 0xf4 || s.size() < static_cast<size_t>(length)) return 0;
  // The allowed range of the second byte depends on the lead byte; later bytes are 80-BF.
  unsigned char lo = 0x80, hi = 0xbf;
  if (lead == 0xe0) lo = 0xa0;
  if (lead == 0xed) hi = 0x9f;
  if (lead == 0xf0) lo = 0x90;
  if (lead == 0xf4) hi = 0x8f;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (int i = 2; i < length; ++i) {
    if (byte(static_cast<size_t>(i)) < 0x80 || byte(static_cast<size_t>(i)) > 0xbf) return 0;
  }
  uint32_t value = lead & (0x7f >> length);
  for (int i = 1; i < length; ++i) value = value << 6 | (byte(static_cast<size_t>(i)) & 0x3f);
  *cp = value;
  return length;
}

/// Code points that are valid but act on the terminal or on the display order.
bool is_invisible_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
         cp == 0x2029;
}

std::string escape(std::string_view text, bool keep_layout) {
  size_t plain = 0;  // the common case, printable ASCII throughout, is returned as it is
  while (plain < text.size() && text[plain] >= 0x20 && text[plain] < 0x7f) ++plain;
  if (plain == text.size()) return std::string(text);
  std::string out(text.substr(0, plain));
  out.reserve(text.size() + 16);
  for (size_t i = plain; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      if (keep_layout && (c == '\n' || c == '\t')) {
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == 0x1b) {
        out += "\\e";
      } else {
        append_byte_escape(out, c);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    int length = decode_multibyte(text.substr(i), &cp);
    if (length == 0) {
      append_byte_escape(out, c);  // resynchronise at the next byte
      ++i;
    } else {
      if (is_invisible_control(cp)) {
        append_code_point_escape(out, cp);
      } else {
        out.append(text.substr(i, static_cast<size_t>(length)));
      }
      i += static_cast<size_t>(length);
    }
  }
  return out;
}

}  // namespace

std::string escape_for_terminal(std::string_view text) { return escape(text, false); }

std::string escape_lines_for_terminal(std::string_view text) { return escape(text, true); }

size_t terminal_columns(std::string_view text) {
  size_t columns = 0;
  for (char c : text) columns += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
  return columns;
}

}  // namespace graft
