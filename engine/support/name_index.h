// NameIndex: items by their own name, for maps of millions of named objects that own their
// name (graph nodes).
//
// An open-addressing table of (hash, pointer) slots with linear probing: the key is not stored,
// it is the item's name(), read only when the full 64-bit hash already matches. A lookup of an
// absent name — the common case when a rewrite makes a fresh name unique — touches one slot
// array cache line, where std::unordered_map<std::string, T*> walks a bucket and a separately
// allocated node per probe, and every insert there is a malloc. At a million nodes that was a
// quarter of the rewrite driver's time (docs/benchmarks.md).
//
// The item's name must not change while it is indexed: erase(), rename, insert_or_assign().
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace graft {

template <typename T>
class NameIndex {
 public:
  T* find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    size_t hash = hash_of(name);
    for (size_t i = hash & mask(); slots_[i].item != nullptr; i = (i + 1) & mask()) {
      if (slots_[i].hash == hash && slots_[i].item->name() == name) return slots_[i].item;
    }
    return nullptr;
  }

  /// Indexes `item` under its name, replacing whatever had that name.
  void insert_or_assign(T* item) {
    insert_unless_taken(item, [](const T*) { return false; });
  }

  /// Indexes `item` under its name unless an item for which `taken` holds has that name
  /// already; returns whether it did. One probe where find() then insert_or_assign() take two:
  /// a rewrite names every node it creates this way.
  template <typename Taken>
  bool insert_unless_taken(T* item, Taken taken) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::string_view name = item->name();
    size_t hash = hash_of(name);
    size_t i = hash & mask();
    for (; slots_[i].item != nullptr; i = (i + 1) & mask()) {
      if (slots_[i].hash == hash && slots_[i].item->name() == name) {
        if (taken(slots_[i].item)) return false;
        slots_[i].item = item;
        return true;
      }
    }
    slots_[i] = {hash, item};
    ++size_;
    return true;
  }

  /// Removes the entry named `name`, if any.
  void erase(std::string_view name) {
    if (slots_.empty()) return;
    size_t hash = hash_of(name);
    for (size_t i = hash & mask(); slots_[i].item != nullptr; i = (i + 1) & mask()) {
      if (slots_[i].hash == hash && slots_[i].item->name() == name) {
        remove_at(i);
        return;
      }
    }
  }

  /// Removes every entry whose item satisfies `pred`.
  template <typename Pred>
  void erase_if(Pred pred) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size(), Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.item != nullptr && !pred(s.item)) place(s);
    }
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    size_t hash = 0;
    T* item = nullptr;  // nullptr: empty
  };

  static size_t hash_of(std::string_view name) { return std::hash<std::string_view>{}(name); }
  size_t mask() const { return slots_.size() - 1; }

  void place(const Slot& s) {
    size_t i = s.hash & mask();
    while (slots_[i].item != nullptr) i = (i + 1) & mask();
    slots_[i] = s;
    ++size_;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.item != nullptr) place(s);
    }
  }

  /// Backward-shift deletion: the entries after the hole that probed past it move up, so the
  /// table never needs tombstones and lookups of absent names stay short after many erases.
  void remove_at(size_t hole) {
    for (size_t j = (hole + 1) & mask(); slots_[j].item != nullptr; j = (j + 1) & mask()) {
      size_t home = slots_[j].hash & mask();
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      bool home_after_hole = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (home_after_hole) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = Slot{};
    --size_;
  }

  std::vector<Slot> slots_;  // a power of two in size, at most half full
  size_t size_ = 0;
};

}  // namespace graft
