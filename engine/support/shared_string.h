// SharedString: an immutable string that many owners share, copied by bumping a count.
// Node provenance is one string per rule ("fuse_conv_bn (fuse.rules:12)") carried by every
// node the rule creates — a million copies of a few dozen distinct strings on a large graph.
#pragma once

#include <memory>
#include <string>

namespace graft {

class SharedString {
 public:
  SharedString() = default;
  explicit SharedString(std::string text)
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}

  const std::string& str() const { return text_ ? *text_ : empty_string(); }
  bool empty() const { return text_ == nullptr; }

 private:
  static const std::string& empty_string() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;  // null for the empty string
};

}  // namespace graft
