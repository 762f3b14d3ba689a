// The strict parser: nlohmann's own DOM builder (json_sax_dom_parser, what json::parse uses)
// behind a SAX handler that keeps, per open object, the keys seen so far, and an input iterator
// that publishes how far the lexer has read, which places a duplicate key in the text.
#include "engine/io/strict_json.h"

#include <cstring>
#include <deque>
#include <iterator>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace graft {
namespace {

using json = nlohmann::json;

/// A char iterator that records, in `*read_to`, the end of what has been read: when the parser
/// reports a key, its closing quote is the last character read (strings need no lookahead).
class TrackedChar {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedChar() = default;
  TrackedChar(const char* p, const char** read_to) : p_(p), read_to_(read_to) {}
  reference operator*() const { return *p_; }
  TrackedChar& operator++() {
    *read_to_ = ++p_;
    return *this;
  }
  TrackedChar operator++(int) {
    TrackedChar old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackedChar& other) const { return p_ == other.p_; }

 private:
  const char* p_ = nullptr;
  const char** read_to_ = nullptr;
};

/// The opening quote of the string whose closing quote is at `close` (the text is valid JSON
/// up to there): the nearest '"' before it not escaped by an odd run of backslashes.
size_t opening_quote(std::string_view text, size_t close) {
  for (size_t i = close; i > 0;) {
    --i;
    if (text[i] != '"') continue;
    size_t slashes = 0;
    while (slashes < i && text[i - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return i;
  }
  return close;
}

/// nlohmann's exception text without the "[json.exception.parse_error.101] " tag.
std::string without_tag(const char* what) {
  std::string_view text = what;
  if (size_t end = text.find("] "); !text.empty() && text[0] == '[' && end != text.npos) {
    text.remove_prefix(end + 2);
  }
  return std::string(text);
}

class StrictSax {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<json>;

  StrictSax(json& root, std::string_view text, const char* const* read_to, JsonError* error)
      : dom_(root, /*allow_exceptions=*/false), text_(text), read_to_(read_to), error_(error) {}

  bool null() { return element() && dom_.null(); }
  bool boolean(bool v) { return element() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return element() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return element() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return element() && dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return element() && dom_.string(v); }
  bool binary(json::binary_t& v) { return element() && dom_.binary(v); }
  bool start_object(size_t n) { return element() && push(true) && dom_.start_object(n); }
  bool start_array(size_t n) { return element() && push(false) && dom_.start_array(n); }
  bool end_object() { return pop() && dom_.end_object(); }
  bool end_array() { return pop() && dom_.end_array(); }
  bool key(json::string_t& k);

  template <class Exception>
  bool parse_error(size_t /*position*/, const std::string& /*token*/, const Exception& e) {
    error_->kind = JsonError::Kind::kSyntax;
    error_->message = without_tag(e.what());
    size_t column = error_->message.find("column ");
    size_t colon = column == std::string::npos ? column : error_->message.find(": ", column);
    error_->reason = colon == std::string::npos ? error_->message : error_->message.substr(colon + 2);
    if constexpr (std::is_same_v<Exception, json::parse_error>) {
      error_->offset = e.byte == 0 ? 0 : e.byte - 1;
    } else {
      // A number beyond double range (out_of_range.406) has no position, but its message
      // quotes the literal, which ends where the lexer stopped reading.
      size_t open = error_->message.find('\'');
      size_t close = open == std::string::npos ? open : error_->message.find('\'', open + 1);
      if (close != std::string::npos) {
        std::string literal = error_->message.substr(open + 1, close - open - 1);
        error_->offset = text_.rfind(literal, static_cast<size_t>(*read_to_ - text_.data()));
      }
    }
    return false;
  }

  /// Offsets of the top-level object's keys (valid after a successful parse of an object).
  void top_level_keys(std::map<std::string, size_t>* out) const;

 private:
  static constexpr size_t kLinearKeys = 16;  // objects up to this size are searched linearly

  struct KeyAt {
    std::string_view name;  // into the text, or into owned_ when escapes changed it
    size_t close;           // offset of its closing quote
  };
  struct Frame {
    bool object = false;
    size_t elements = 0;  // arrays: values started so far
    std::vector<KeyAt> keys;
    std::unordered_map<std::string_view, size_t> index;  // filled once keys outgrow kLinearKeys
  };

  bool element() {
    if (depth_ > 0 && !frames_[depth_ - 1].object) ++frames_[depth_ - 1].elements;
    return true;
  }
  bool push(bool object) {
    if (depth_ == frames_.size()) frames_.emplace_back();
    Frame& f = frames_[depth_++];
    f.object = object;
    f.elements = 0;
    f.keys.clear();
    if (!f.index.empty()) f.index.clear();
    return true;
  }
  bool pop() {
    --depth_;
    return true;
  }
  const KeyAt* find(Frame& f, std::string_view name);
  std::string pointer_to(size_t depth) const;

  Dom dom_;
  std::string_view text_;
  const char* const* read_to_;
  JsonError* error_;
  std::vector<Frame> frames_;  // kept across objects so their buffers are reused
  size_t depth_ = 0;
  std::deque<std::string> owned_;  // keys whose text differs from their value (escapes)
};

const StrictSax::KeyAt* StrictSax::find(Frame& f, std::string_view name) {
  if (f.keys.size() < kLinearKeys) {
    for (const KeyAt& k : f.keys) {
      if (k.name == name) return &k;
    }
    return nullptr;
  }
  if (f.index.empty()) {
    for (size_t i = 0; i < f.keys.size(); ++i) f.index.emplace(f.keys[i].name, i);
  }
  auto it = f.index.find(name);
  return it == f.index.end() ? nullptr : &f.keys[it->second];
}

bool StrictSax::key(json::string_t& k) {
  Frame& f = frames_[depth_ - 1];
  size_t close = static_cast<size_t>(*read_to_ - text_.data()) - 1;
  // The key's bytes sit just before its closing quote unless escapes changed them.
  std::string_view name = close >= k.size() ? text_.substr(close - k.size(), k.size()) : "";
  if (name != k) name = owned_.emplace_back(k);
  if (const KeyAt* first = find(f, name)) {
    error_->kind = JsonError::Kind::kDuplicateKey;
    error_->offset = opening_quote(text_, close);
    error_->key = k;
    error_->object_pointer = pointer_to(depth_ - 1);
    error_->first_offset = opening_quote(text_, first->close);
    return false;
  }
  f.keys.push_back({name, close});
  if (!f.index.empty()) f.index.emplace(name, f.keys.size() - 1);
  return dom_.key(k);
}

std::string StrictSax::pointer_to(size_t depth) const {
  json::json_pointer p;
  for (size_t i = 0; i < depth; ++i) {
    const Frame& f = frames_[i];
    p /= f.object ? std::string(f.keys.back().name) : std::to_string(f.elements - 1);
  }
  return p.to_string();
}

void StrictSax::top_level_keys(std::map<std::string, size_t>* out) const {
  if (frames_.empty() || !frames_[0].object) return;
  for (const KeyAt& k : frames_[0].keys) {
    out->emplace(std::string(k.name), opening_quote(text_, k.close));
  }
}

}  // namespace

std::optional<json> parse_strict_json(std::string_view text, JsonError* error,
                                      std::map<std::string, size_t>* top_level_keys) {
  // nlohmann's lexer takes NUL for the end of the input, so it must be caught before.
  if (const void* nul = std::memchr(text.data(), 0, text.size())) {
    error->kind = JsonError::Kind::kNul;
    error->offset = static_cast<size_t>(static_cast<const char*>(nul) - text.data());
    return std::nullopt;
  }
  json root;
  const char* read_to = text.data();
  StrictSax sax(root, text, &read_to, error);
  TrackedChar begin(text.data(), &read_to);
  TrackedChar end(text.data() + text.size(), &read_to);
  if (!json::sax_parse(begin, end, &sax, json::input_format_t::json, /*strict=*/true)) {
    return std::nullopt;
  }
  if (top_level_keys != nullptr) sax.top_level_keys(top_level_keys);
  return root;
}

std::pair<size_t, size_t> json_line_col(std::string_view text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace graft
