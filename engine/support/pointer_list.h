// PointerList<T>: a list of T* that keeps up to two inline — a node's user list.
//
// Most values in a network have one or two users, and a rewrite creates and erases nodes by
// the million: with std::vector every user list is a heap block of its own (a malloc when the
// node gets its first user, a free when it is erased, and a cache miss whenever a pass reads
// a node's users). Two inline pointers cover nearly every node in the same 24 bytes a vector
// takes; longer lists move to the heap and double as a vector would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace graft {

template <typename T>
class PointerList {
 public:
  PointerList() = default;
  PointerList(const PointerList& other) { assign(other.begin(), other.size()); }
  PointerList(PointerList&& other) noexcept { take(other); }
  PointerList& operator=(const PointerList& other) {
    if (this != &other) {
      clear_storage();
      assign(other.begin(), other.size());
    }
    return *this;
  }
  PointerList& operator=(PointerList&& other) noexcept {
    if (this != &other) {
      clear_storage();
      take(other);
    }
    return *this;
  }
  ~PointerList() { clear_storage(); }

  T* const* begin() const { return data(); }
  T* const* end() const { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* operator[](size_t i) const { return data()[i]; }
  std::span<T* const> span() const { return {data(), size_}; }

  void push_back(T* p) {
    if (size_ == capacity()) grow();
    data()[size_++] = p;
  }
  /// Removes the element at `i`, keeping the order of the rest.
  void erase_at(size_t i) {
    T** d = data();
    std::memmove(d + i, d + i + 1, (size_ - i - 1) * sizeof(T*));
    --size_;
  }
  /// Empties the list and gives back heap storage.
  void release() {
    clear_storage();
    size_ = 0;
    cap_ = kInline;
  }

 private:
  static constexpr uint32_t kInline = 2;

  bool inline_storage() const { return cap_ == kInline; }
  size_t capacity() const { return cap_; }
  T** data() { return inline_storage() ? u_.inline_ : u_.heap_; }
  T* const* data() const { return inline_storage() ? u_.inline_ : u_.heap_; }

  void grow() {
    uint32_t cap = cap_ * 2;
    T** heap = static_cast<T**>(::operator new(cap * sizeof(T*)));
    std::memcpy(heap, data(), size_ * sizeof(T*));
    clear_storage();
    u_.heap_ = heap;
    cap_ = cap;
  }
  void assign(T* const* items, size_t n) {
    size_ = 0;
    cap_ = kInline;
    for (size_t i = 0; i < n; ++i) push_back(items[i]);
  }
  void take(PointerList& other) {
    size_ = other.size_;
    cap_ = other.cap_;
    u_ = other.u_;  // the inline pointers, or the heap block, which moves over
    other.size_ = 0;
    other.cap_ = kInline;
  }
  void clear_storage() {
    if (!inline_storage()) ::operator delete(u_.heap_);
    cap_ = kInline;
  }

  uint32_t size_ = 0;
  uint32_t cap_ = kInline;  // kInline: the elements are in u_.inline_
  union Storage {
    T* inline_[kInline];
    T** heap_;
  } u_{};
};

}  // namespace graft
