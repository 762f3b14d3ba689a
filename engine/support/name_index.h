// NameIndex: items by their own name, for maps of millions of named objects that own their
// name (graph nodes).
//
// An open-addressing table of (hash, pointer) slots with linear probing: the key is not stored,
// it is the item's name(), read only when the full 64-bit hash already matches. A lookup of an
// absent name — the common case when a rewrite makes a fresh name unique — touches one slot
// array cache line, where std::unordered_map<std::string, T*> walks a bucket and a separately
// allocated node per probe, and every insert there is a malloc.
//
// The item's name must not change while it is indexed: erase(), rename, insert_or_assign().
#pragma once

#include <cstddef>
#include <string_view>

#include "engine/support/hash.h"
#include "engine/support/probe_slots.h"

namespace graft {

template <typename T>
class NameIndex {
 public:
  T* find(std::string_view name) const {
    if (!slots_.has_slots()) return nullptr;
    return slots_[slot_of(name)].item;
  }

  /// Asks the hardware to fetch the slot where a probe for `name` starts: on a table of
  /// millions that slot is a cache miss, which a caller with other work to do first can
  /// overlap with it.
  void prefetch(std::string_view name) const {
    if (slots_.has_slots()) slots_.prefetch(hash_of(name));
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
    slots_.make_room();
    std::string_view name = item->name();
    size_t hash = hash_of(name);
    size_t i = slots_.probe(hash, [&](const Slot& s) { return s.item->name() == name; });
    if (!slots_[i].occupied()) {
      slots_.fill(i, {hash, item});
      return true;
    }
    if (taken(slots_[i].item)) return false;
    slots_[i].item = item;
    return true;
  }

  /// Indexes `item` under its name unless some item has that name already, which it then
  /// returns (nullptr when `item` was indexed). One probe, for a store that adds a new entry or
  /// updates the existing one.
  T* insert_or_find(T* item) {
    slots_.make_room();
    std::string_view name = item->name();
    size_t hash = hash_of(name);
    size_t i = slots_.probe(hash, [&](const Slot& s) { return s.item->name() == name; });
    if (slots_[i].occupied()) return slots_[i].item;
    slots_.fill(i, {hash, item});
    return nullptr;
  }

  /// Makes room for one more entry, dropping the entries whose item is `stale` if the table
  /// is full (ProbeSlots::make_room(keep)).
  template <typename Stale>
  void make_room(Stale stale) {
    slots_.make_room([&](const Slot& s) { return !stale(s.item); });
  }

  /// Removes the entry named `name`, if any.
  void erase(std::string_view name) {
    if (!slots_.has_slots()) return;
    size_t i = slot_of(name);
    if (slots_[i].occupied()) slots_.erase_at(i);
  }

  /// Removes every entry whose item satisfies `pred`.
  template <typename Pred>
  void erase_if(Pred pred) {
    slots_.retain([&](const Slot& s) { return !pred(s.item); });
  }

  size_t size() const { return slots_.size(); }

 private:
  struct Slot {
    size_t hash = 0;
    T* item = nullptr;  // nullptr: empty
    bool occupied() const { return item != nullptr; }
  };

  static size_t hash_of(std::string_view name) { return hash_string(name); }

  /// The slot of the entry named `name`, or the empty slot where it would go.
  size_t slot_of(std::string_view name) const {
    return slots_.probe(hash_of(name), [&](const Slot& s) { return s.item->name() == name; });
  }

  ProbeSlots<Slot> slots_;
};

}  // namespace graft
