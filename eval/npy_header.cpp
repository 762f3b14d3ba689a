// A recursive-descent reader for the one Python literal a .npy header holds; numpy itself
// reads it with ast.literal_eval, which graft narrows to what numpy writes.
#include "eval/npy_header.h"

#include <optional>

#include "engine/support/terminal_text.h"

namespace graft::eval {
namespace {

/// The largest dimension read: 15 digits keep the value and any product check within int64.
constexpr size_t kMaxDimDigits = 15;

class DictReader {
 public:
  explicit DictReader(std::string_view text) : text_(text) {}

  std::variant<NpyHeaderDict, std::string> read() {
    NpyHeaderDict dict;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    if (!expect('{')) return error_;
    skip_blanks();
    while (peek() != '}') {
      const size_t key_at = pos_;
      std::optional<std::string> key = string_literal();
      if (!key) return error_;
      if (!expect(':')) return error_;
      skip_blanks();
      bool* seen = *key == "descr"           ? &seen_descr
                   : *key == "fortran_order" ? &seen_order
                   : *key == "shape"         ? &seen_shape
                                             : nullptr;
      if (seen == nullptr) {
        return fail_at(key_at, "unexpected key '" + *key +
                                   "' (a .npy header has 'descr', 'fortran_order' and 'shape')");
      }
      if (*seen) return fail_at(key_at, "key '" + *key + "' appears twice");
      if (seen == &seen_descr) {
        std::optional<std::string> descr = string_literal();
        if (!descr) return error_;
        dict.descr = std::move(*descr);
      } else if (seen == &seen_order) {
        std::optional<bool> order = bool_literal();
        if (!order) return error_;
        dict.fortran_order = *order;
      } else {
        std::optional<Shape> shape = shape_tuple();
        if (!shape) return error_;
        dict.shape = std::move(*shape);
      }
      *seen = true;
      skip_blanks();
      if (peek() != ',') break;
      ++pos_;
      skip_blanks();
    }
    if (!expect('}')) return error_;
    skip_blanks();
    if (pos_ != text_.size()) return fail_at(pos_, "text after the closing '}'");
    if (!seen_descr || !seen_order || !seen_shape) {
      return fail_at(pos_, std::string("missing key '") +
                               (!seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape") +
                               "' (a .npy header has 'descr', 'fortran_order' and 'shape')");
    }
    return dict;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_blanks() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) {
      ++pos_;
    }
  }

  std::string fail_at(size_t at, const std::string& message) {
    error_ = message + " at offset " + std::to_string(at) + " of the header";
    return error_;
  }

  std::string describe_here() const {
    if (pos_ >= text_.size()) return "the end of the header";
    return "'" + escape_for_terminal(text_.substr(pos_, 1)) + "'";
  }

  bool expect(char c) {
    skip_blanks();
    if (peek() != c) {
      fail_at(pos_, std::string("expected '") + c + "', found " + describe_here());
      return false;
    }
    ++pos_;
    return true;
  }

  /// 'text' or "text" without escapes: numpy's descr and keys are plain ASCII.
  std::optional<std::string> string_literal() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') {
      fail_at(pos_, "expected a quoted string, found " + describe_here());
      return std::nullopt;
    }
    const size_t begin = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      const char c = text_[pos_];
      if (c == '\\' || c < 0x20 || c >= 0x7f) {
        fail_at(pos_, "unsupported character in a string: " + describe_here());
        return std::nullopt;
      }
      ++pos_;
    }
    if (pos_ >= text_.size()) {
      fail_at(begin - 1, "unterminated string");
      return std::nullopt;
    }
    return std::string(text_.substr(begin, pos_++ - begin));
  }

  std::optional<bool> bool_literal() {
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const std::string_view w(word);
      if (text_.substr(pos_, w.size()) == w) {
        pos_ += w.size();
        return value;
      }
    }
    fail_at(pos_, "expected True or False, found " + describe_here());
    return std::nullopt;
  }

  /// "()", "(3,)", "(2, 3)", "(2, 3,)": Python's tuple syntax, where one element needs a comma.
  std::optional<Shape> shape_tuple() {
    const size_t open = pos_;
    if (!expect('(')) return std::nullopt;
    Shape shape;
    bool trailing_comma = false;
    skip_blanks();
    while (peek() != ')') {
      std::optional<Dim> dim = dimension();
      if (!dim) return std::nullopt;
      shape.push_back(*dim);
      skip_blanks();
      trailing_comma = peek() == ',';
      if (!trailing_comma) break;
      ++pos_;
      skip_blanks();
    }
    if (!expect(')')) return std::nullopt;
    if (shape.size() == 1 && !trailing_comma) {
      fail_at(open, "a shape of one dimension is written '(n,)'; '(n)' is not a tuple");
      return std::nullopt;
    }
    return shape;
  }

  std::optional<Dim> dimension() {
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    const size_t digits = pos_ - begin;
    if (digits == 0) {
      fail_at(begin, "expected a dimension (a non-negative integer), found " + describe_here());
      return std::nullopt;
    }
    if (digits > 1 && text_[begin] == '0') {
      fail_at(begin, "a dimension has no leading zeros");
      return std::nullopt;
    }
    if (digits > kMaxDimDigits) {
      fail_at(begin, "dimension of more than " + std::to_string(kMaxDimDigits) + " digits");
      return std::nullopt;
    }
    return std::stoll(std::string(text_.substr(begin, digits)));
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::variant<NpyHeaderDict, std::string> parse_npy_header_dict(std::string_view text) {
  return DictReader(text).read();
}

}  // namespace graft::eval
