// SharedString: an immutable string that many owners share, copied by bumping a count.
// Node provenance is one string per rule ("fuse_conv_bn (fuse.rules:12)") carried by every
// node the rule creates — a million copies of a few dozen distinct strings on a large graph.
// One pointer to a counted block rather than a std::shared_ptr's two: every node holds one.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

namespace graft {

class SharedString {
 public:
  SharedString() = default;
  explicit SharedString(std::string text)
      : block_(text.empty() ? nullptr : new Block{{1}, std::move(text)}) {}
  SharedString(const SharedString& other) : block_(other.block_) { retain(); }
  SharedString(SharedString&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  SharedString& operator=(const SharedString& other) {
    SharedString copy(other);
    std::swap(block_, copy.block_);
    return *this;
  }
  SharedString& operator=(SharedString&& other) noexcept {
    SharedString taken(std::move(other));
    std::swap(block_, taken.block_);
    return *this;
  }
  ~SharedString() { release(); }

  const std::string& str() const { return block_ != nullptr ? block_->text : empty_string(); }
  bool empty() const { return block_ == nullptr; }

 private:
  struct Block {
    std::atomic<uint64_t> count;  // atomic: graphs are cloned and read on several threads
    const std::string text;
  };
  void retain() {
    if (block_ != nullptr) block_->count.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    if (block_ != nullptr && block_->count.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete block_;
    }
  }
  static const std::string& empty_string() {
    static const std::string empty;
    return empty;
  }
  Block* block_ = nullptr;  // null for the empty string
};

}  // namespace graft
