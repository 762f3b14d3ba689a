#include "engine/support/diagnostics.h"

#include <catch2/catch.hpp>

#include "engine/support/source_manager.h"

using namespace graft;

TEST_CASE("diagnostics render file:line:col, the source line and a caret", "[support]") {
  SourceManager sources;
  FileId file = sources.add_buffer("fuse.rules", "rule a {\n  y = conv2(x, w)\n}\n");
  DiagnosticEngine diags(&sources);
  // "conv2" starts at byte 15 of the buffer.
  Diagnostic& d = diags.error(DiagLocation::at({file, 15, 20}), "unknown op 'conv2'");
  DiagnosticEngine::add_note(d, DiagLocation::at({file, 0, 4}), "in rule 'a'");
  CHECK(diags.render() ==
        "fuse.rules:2:7: error: unknown op 'conv2'\n"
        " 2 |   y = conv2(x, w)\n"
        "   |       ^~~~~\n"
        "fuse.rules:1:1: note: in rule 'a'\n"
        " 1 | rule a {\n"
        "   | ^~~~\n");
  CHECK(diags.error_count() == 1);
}

TEST_CASE("json diagnostics name the file and the JSON pointer", "[support]") {
  DiagnosticEngine diags;
  diags.error(DiagLocation::in_json("model.json", "/nodes/17/args/0"),
              "reference to undefined node 'conv9'");
  CHECK(diags.render() ==
        "model.json: /nodes/17/args/0: error: reference to undefined node 'conv9'\n");
}

TEST_CASE("diagnostics stop storing after the error limit", "[support]") {
  DiagnosticEngine diags(nullptr, 3);
  for (int i = 0; i < 5; ++i) diags.error(DiagLocation::in_file("f"), "e" + std::to_string(i));
  CHECK(diags.error_count() == 5);
  CHECK(diags.diagnostics().size() == 3);
  CHECK(diags.render().find("too many errors (5)") != std::string::npos);
}

TEST_CASE("source manager maps offsets to lines and columns", "[support]") {
  SourceManager sources;
  FileId file = sources.add_buffer("a", "ab\ncd\r\n\nef");
  CHECK(sources.line_col(file, 0).line == 1);
  CHECK(sources.line_col(file, 4).line == 2);
  CHECK(sources.line_col(file, 4).col == 2);
  CHECK(sources.line_text(file, 2) == "cd");
  CHECK(sources.line_text(file, 3).empty());
  CHECK(sources.line_text(file, 4) == "ef");
}

TEST_CASE("diagnostics escape control characters in messages, locations and source lines",
          "[support][terminal_text]") {
  SourceManager sources;
  // ESC [31m before the span, a tab, a UTF-8 name and an invalid byte in the span.
  FileId file = sources.add_buffer("\x1b]0;title\x07.rules",
                                   "x = \x1b[31m\tcaf\xc3\xa9(\xff) # \x1b[0m\n");
  DiagnosticEngine diags(&sources);
  // The span is "café(\xff)", bytes 10 to 18.
  diags.error(DiagLocation::at({file, 10, 18}), "unknown op 'caf\xc3\xa9\x1b[2J'");
  diags.error(DiagLocation::in_json("m\r.json", "/nodes/0/kwargs/\x1b[1m"), "bad\nname");
  CHECK(diags.render() ==
        "\\e]0;title\\x07.rules:1:11: error: unknown op 'caf\xc3\xa9\\e[2J'\n"
        " 1 | x = \\e[31m\tcaf\xc3\xa9(\\xff) # \\e[0m\n"
        "   |           \t^~~~~~~~~~\n"
        "m\\r.json: /nodes/0/kwargs/\\e[1m: error: bad\\nname\n");
}

TEST_CASE("the caret stays under its span after a multi-byte character",
          "[support][terminal_text]") {
  SourceManager sources;
  FileId file = sources.add_buffer("u.rules", "r\xc3\xa9gle = conv2(x)\n");
  DiagnosticEngine diags(&sources);
  diags.error(DiagLocation::at({file, 9, 14}), "unknown op 'conv2'");
  CHECK(diags.render() ==
        "u.rules:1:10: error: unknown op 'conv2'\n"
        " 1 | r\xc3\xa9gle = conv2(x)\n"
        "   |         ^~~~~\n");
}
