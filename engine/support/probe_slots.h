// ProbeSlots<Slot>: the slot array of an open-addressing hash table with linear probing — the
// mechanics shared by the project's flat indexes (NameIndex, SequenceMap), which differ only
// in what a slot holds and how a key is compared.
//
// A Slot has a `size_t hash` and `bool occupied() const`, and a default-constructed Slot is
// empty. The array is a power of two in size and at most half full (make_room() doubles it),
// so probe runs stay short; erasing shifts later entries back instead of leaving tombstones.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace graft {

template <typename Slot>
class ProbeSlots {
 public:
  size_t size() const { return size_; }
  bool has_slots() const { return !slots_.empty(); }
  const Slot& operator[](size_t i) const { return slots_[i]; }
  Slot& operator[](size_t i) { return slots_[i]; }

  /// The index of the occupied slot with `hash` that `matches`, or else of the empty slot that
  /// ends the probe run (where such an entry would go). Needs has_slots().
  template <typename Matches>
  size_t probe(size_t hash, Matches matches) const {
    size_t i = hash & mask();
    while (slots_[i].occupied() && !(slots_[i].hash == hash && matches(slots_[i]))) {
      i = (i + 1) & mask();
    }
    return i;
  }

  /// Starts fetching the slot where a probe for `hash` begins (probe() without waiting).
  void prefetch(size_t hash) const { __builtin_prefetch(&slots_[hash & mask()]); }

  /// Grows the array if one more entry would make it more than half full.
  void make_room() {
    if (2 * (size_ + 1) > slots_.size()) {
      rebuild(slots_.empty() ? 64 : 2 * slots_.size(), [](const Slot&) { return true; });
    }
  }
  /// As make_room(), but a full array first drops the entries `keep` rejects, and grows only
  /// as far as the rest need (to at most 7/16 full, so that a sixteenth of the array is left
  /// for inserts before the next rebuild): a table whose entries go stale (a graph's name
  /// index keeps erased nodes until their names are reused) stays the size of its live entries
  /// instead of doubling over the dead ones. A quarter full would often double a
  /// million-entry array that dropping the stale entries had left room enough in.
  template <typename Keep>
  void make_room(Keep keep) {
    if (2 * (size_ + 1) <= slots_.size()) return;
    size_t kept = 0;
    for (const Slot& s : slots_) kept += s.occupied() && keep(s);
    size_t capacity = 64;
    while (16 * (kept + 1) > 7 * capacity) capacity *= 2;
    if (capacity == slots_.size()) {
      retain(keep);
    } else {
      rebuild(capacity, keep);
    }
  }
  /// Stores `s` in empty slot `i` (from probe(), after make_room()).
  void fill(size_t i, const Slot& s) {
    slots_[i] = s;
    ++size_;
  }
  /// Stores `s` at the end of its probe run (a new entry; after make_room()).
  void place(const Slot& s) {
    fill(probe(s.hash, [](const Slot&) { return false; }), s);
  }

  /// Re-places the entries that `keep` accepts into an array of `capacity` slots.
  template <typename Keep>
  void rebuild(size_t capacity, Keep keep) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.occupied() && keep(s)) place(s);
    }
  }
  /// Drops the entries `keep` rejects, in place: a rebuild would hold a second array of the
  /// same size while it re-places the rest, and a graph's name index is tens of megabytes.
  template <typename Keep>
  void retain(Keep keep) {
    for (size_t i = 0; i < slots_.size();) {
      // erase_at may move a later entry (or, across the end, an earlier one) into slot i:
      // slot i is looked at again. An entry is never moved to a slot the loop has passed
      // unless it had been looked at already.
      if (slots_[i].occupied() && !keep(slots_[i])) {
        erase_at(i);
      } else {
        ++i;
      }
    }
  }

  /// Empties occupied slot `hole`. Backward-shift deletion: the entries after the hole that
  /// probed past it move up, so lookups of absent keys stay short after many erases.
  void erase_at(size_t hole) {
    for (size_t j = (hole + 1) & mask(); slots_[j].occupied(); j = (j + 1) & mask()) {
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

 private:
  size_t mask() const { return slots_.size() - 1; }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace graft
