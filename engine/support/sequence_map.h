// SequenceMap: a hash map from short sequences of uint32 to a uint32 — the matcher's
// transition table, (op, predicate bits, operand states) -> state.
//
// Labelling looks a transition up for every node of the graph and for every node a rewrite
// touches, so the lookup is on the driver's hottest path. Keys live back to back in one array
// and the table holds (hash, key position, value) slots with linear probing: a lookup hashes
// the words (support/hash.h; no byte loop), reads one slot line and compares one
// key, where a std::unordered_map<std::string, uint32_t> hashes the key as bytes and walks its
// bucket's node.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "engine/support/hash.h"
#include "engine/support/probe_slots.h"

namespace graft {

class SequenceMap {
 public:
  /// The value stored for `key`, or nullptr.
  const uint32_t* find(std::span<const uint32_t> key) const {
    if (!slots_.has_slots()) return nullptr;
    const Slot& s =
        slots_[slots_.probe(hash_of(key), [&](const Slot& t) { return key_equals(t, key); })];
    return s.occupied() ? &s.value : nullptr;
  }

  /// Stores `value` for `key`, which must not be in the map yet.
  void insert(std::span<const uint32_t> key, uint32_t value) {
    slots_.make_room();
    Slot s;
    s.hash = hash_of(key);
    s.offset = static_cast<uint32_t>(keys_.size());
    s.length = static_cast<uint32_t>(key.size());
    s.value = value;
    s.used = true;
    keys_.insert(keys_.end(), key.begin(), key.end());
    slots_.place(s);
  }

  size_t size() const { return slots_.size(); }

 private:
  struct Slot {
    size_t hash = 0;
    uint32_t offset = 0;  // into keys_
    uint32_t length = 0;
    uint32_t value = 0;
    bool used = false;
    bool occupied() const { return used; }
  };

  static size_t hash_of(std::span<const uint32_t> key) { return hash_words(key); }

  bool key_equals(const Slot& s, std::span<const uint32_t> key) const {
    return s.length == key.size() &&
           (key.empty() ||
            std::memcmp(keys_.data() + s.offset, key.data(), key.size() * sizeof(uint32_t)) == 0);
  }

  ProbeSlots<Slot> slots_;
  std::vector<uint32_t> keys_;
};

}  // namespace graft
