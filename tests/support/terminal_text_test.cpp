// escape_for_terminal: what a terminal would act on is spelled out, printable text of any
// script is kept, and escaping is idempotent.
#include "engine/support/terminal_text.h"

#include <catch2/catch.hpp>

using graft::escape_for_terminal;
using graft::escape_lines_for_terminal;

TEST_CASE("escape_for_terminal spells out controls and invalid UTF-8", "[support][terminal_text]") {
  using namespace std::string_literals;
  auto [text, escaped] = GENERATE(table<std::string, std::string>({
      {"conv1", "conv1"},
      {"", ""},
      {"\x1b[31mred\x1b[0m", "\\e[31mred\\e[0m"},
      {"a\nb\rc\td", "a\\nb\\rc\\td"},
      {"nul\0byte"s, "nul\\x00byte"},
      {"bell\x07 del\x7f", "bell\\x07 del\\x7f"},
      {"caf\xc3\xa9 \xe5\x90\x8d \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe5\x90\x8d \xf0\x9f\x98\x80"},
      {"bad\xff\xfe", "bad\\xff\\xfe"},
      {"stray\x80", "stray\\x80"},
      {"cut\xe5\x90", "cut\\xe5\\x90"},
      {"overlong\xc0\xaf", "overlong\\xc0\\xaf"},
      {"surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80"},
      {"too big\xf4\x90\x80\x80", "too big\\xf4\\x90\\x80\\x80"},
      {"csi\xc2\x9b"
       "31m",
       "csi\\u009b31m"},
      {"rtl\xe2\x80\xae"
       "evil",
       "rtl\\u202eevil"},
      {"isolate\xe2\x81\xa6x\xe2\x81\xa9", "isolate\\u2066x\\u2069"},
      {"line\xe2\x80\xa8sep", "line\\u2028sep"},
      {"back\\slash \\e", "back\\slash \\e"},
  }));
  INFO(escaped);
  CHECK(escape_for_terminal(text) == escaped);
  CHECK(escape_for_terminal(escaped) == escaped);  // idempotent
  for (char c : escape_for_terminal(text)) {
    unsigned char u = static_cast<unsigned char>(c);
    CHECK((u >= 0x20 && u != 0x7f));
  }
}

TEST_CASE("escape_lines_for_terminal keeps newlines and tabs only", "[support][terminal_text]") {
  CHECK(escape_lines_for_terminal("a\n\tb\x1b[2J\r\n") == "a\n\tb\\e[2J\\r\n");
  CHECK(escape_lines_for_terminal("plain\n") == "plain\n");
  CHECK(escape_lines_for_terminal("\xff\n") == "\\xff\n");
}

TEST_CASE("terminal_columns counts characters, not bytes", "[support][terminal_text]") {
  CHECK(graft::terminal_columns("") == 0);
  CHECK(graft::terminal_columns("conv1") == 5);
  CHECK(graft::terminal_columns("caf\xc3\xa9") == 4);
  CHECK(graft::terminal_columns("\\e[31m") == 6);
  CHECK(graft::terminal_columns("\xf0\x9f\x98\x80!") == 2);
}
