// InlineVector<T, N>: a vector of a trivially copyable T that keeps up to N elements inside
// itself — a node's user list (PointerList) and its operand list.
//
// A rewrite creates and erases nodes by the hundred thousand. With std::vector every such list
// is a heap block of its own: a malloc when the node is made, a free when it goes, and a cache
// miss whenever labelling or matching reads it. Most nodes have one or two users and at most
// three operands (conv2d(x, w, b)); those lists live in the node, longer ones move to the heap
// and double as a vector would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>

namespace graft {

template <typename T, uint32_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "elements are moved with memcpy");
  static_assert(N >= 1);

 public:
  InlineVector() = default;
  InlineVector(std::span<const T> items) { assign(items); }
  InlineVector(const InlineVector& other) { assign(other.span()); }
  InlineVector(InlineVector&& other) noexcept { take(other); }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) assign(other.span());
    return *this;
  }
  InlineVector& operator=(InlineVector&& other) noexcept {
    if (this != &other) {
      free_heap();
      take(other);
    }
    return *this;
  }
  ~InlineVector() { free_heap(); }

  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& operator[](size_t i) { return data()[i]; }
  std::span<const T> span() const { return {data(), size_}; }

  /// Replaces the contents with `items` (which must not lie in this vector), keeping heap
  /// storage that is big enough.
  void assign(std::span<const T> items) {
    if (items.size() > cap_) {
      free_heap();
      allocate(static_cast<uint32_t>(items.size()));
    }
    if (!items.empty()) std::memcpy(data(), items.data(), items.size() * sizeof(T));
    size_ = static_cast<uint32_t>(items.size());
  }
  void push_back(const T& item) {
    if (size_ == cap_) grow();
    data()[size_++] = item;
  }
  /// Removes the element at `i`, keeping the order of the rest.
  void erase_at(size_t i) {
    T* d = data();
    std::memmove(d + i, d + i + 1, (size_ - i - 1) * sizeof(T));
    --size_;
  }
  /// Empties the vector and gives back heap storage.
  void release() {
    free_heap();
    size_ = 0;
  }

 private:
  bool is_inline() const { return cap_ == N; }
  T* data() { return is_inline() ? std::launder(reinterpret_cast<T*>(u_.inline_)) : u_.heap_; }
  const T* data() const {
    return is_inline() ? std::launder(reinterpret_cast<const T*>(u_.inline_)) : u_.heap_;
  }

  void allocate(uint32_t cap) {
    u_.heap_ = static_cast<T*>(::operator new(cap * sizeof(T)));
    cap_ = cap;
  }
  void grow() {
    uint32_t cap = cap_ * 2;
    T* heap = static_cast<T*>(::operator new(cap * sizeof(T)));
    std::memcpy(heap, data(), size_ * sizeof(T));
    free_heap();
    u_.heap_ = heap;
    cap_ = cap;
  }
  void take(InlineVector& other) {
    size_ = other.size_;
    cap_ = other.cap_;
    u_ = other.u_;  // the inline elements, or the heap block, which moves over
    other.size_ = 0;
    other.cap_ = N;
  }
  void free_heap() {
    if (!is_inline()) ::operator delete(u_.heap_);
    cap_ = N;
  }

  uint32_t size_ = 0;
  uint32_t cap_ = N;  // N: the elements are in u_.inline_
  // Bytes rather than T[N]: T may have default member initialisers, which a union member may
  // not; T is trivially copyable, so memcpy and assignment create its objects there.
  union Storage {
    alignas(T) std::byte inline_[N * sizeof(T)];
    T* heap_;
  } u_{};
};

/// A node's user list: two pointers inline, in the 24 bytes a std::vector takes.
template <typename T>
using PointerList = InlineVector<T*, 2>;

}  // namespace graft
