// User text made safe to echo on a terminal. Names, targets, attribute strings, file paths and
// source lines come from files graft did not write; echoed raw, an escape sequence in one of
// them recolours the screen, moves the cursor or hides the rest of a line, and invalid UTF-8
// garbles it. Every printer and diagnostic passes such text through escape_for_terminal.
#pragma once

#include <string>
#include <string_view>

namespace graft {

/// `text` with everything a terminal would act on made visible, and printable text
/// (valid UTF-8, any script) unchanged:
///   \n \r \t \e        newline, carriage return, tab, ESC
///   \xNN               the other C0 controls (NUL is \x00), DEL, and each byte of invalid
///                      UTF-8 (a stray continuation byte, an overlong form, a surrogate)
///   \uNNNN             C1 controls (U+0080-U+009F), which some terminals obey as ESC [,
///                      bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E,
///                      U+2066-U+2069), which reorder what is displayed, and the line and
///                      paragraph separators U+2028, U+2029
/// Backslashes are kept, so the function is idempotent: escaping escaped text changes
/// nothing, and text may be escaped where it is made and again where it is printed. The
/// result is for reading, not for parsing back (a name spelled `a\e` prints as one with ESC).
std::string escape_for_terminal(std::string_view text);

/// escape_for_terminal for multi-line text: newlines and tabs are kept, everything else is
/// escaped. For reports assembled from several lines (test and verify reports, source lines).
std::string escape_lines_for_terminal(std::string_view text);

/// The characters of UTF-8 `text` (bytes that start one): the columns escaped text takes on a
/// terminal, for aligning tables and carets (wide CJK characters take two and are counted
/// once).
size_t terminal_columns(std::string_view text);

}  // namespace graft
