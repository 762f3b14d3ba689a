// SequenceMap: a hash map from short sequences of uint32 to a uint32 — the matcher's
// transition table, (op, predicate bits, operand states) -> state.
//
// Labelling looks a transition up for every node of the graph and for every node a rewrite
// touches, so the lookup is on the driver's hottest path. Keys live back to back in one array
// and the table holds (hash, key position, value) slots with linear probing: a lookup hashes
// the words with a multiply-rotate mix (no byte loop), reads one slot line and compares one
// key. A std::unordered_map<std::string, uint32_t> spent ~250 instructions per lookup hashing
// the key as bytes and walking its bucket's node.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace graft {

class SequenceMap {
 public:
  /// The value stored for `key`, or nullptr.
  const uint32_t* find(std::span<const uint32_t> key) const {
    if (slots_.empty()) return nullptr;
    uint64_t hash = hash_of(key);
    for (size_t i = hash & mask(); slots_[i].used; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.hash == hash && key_equals(s, key)) return &s.value;
    }
    return nullptr;
  }

  /// Stores `value` for `key`, which must not be in the map yet.
  void insert(std::span<const uint32_t> key, uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot s;
    s.hash = hash_of(key);
    s.offset = static_cast<uint32_t>(keys_.size());
    s.length = static_cast<uint32_t>(key.size());
    s.value = value;
    s.used = true;
    keys_.insert(keys_.end(), key.begin(), key.end());
    place(s);
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;  // into keys_
    uint32_t length = 0;
    uint32_t value = 0;
    bool used = false;
  };

  static uint64_t hash_of(std::span<const uint32_t> key) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    for (uint32_t w : key) h = std::rotl((h ^ w) * 0xbf58476d1ce4e5b9ull, 29);
    return h ^ (h >> 32);
  }
  size_t mask() const { return slots_.size() - 1; }

  bool key_equals(const Slot& s, std::span<const uint32_t> key) const {
    return s.length == key.size() &&
           (key.empty() ||
            std::memcmp(keys_.data() + s.offset, key.data(), key.size() * sizeof(uint32_t)) == 0);
  }
  void place(const Slot& s) {
    size_t i = s.hash & mask();
    while (slots_[i].used) i = (i + 1) & mask();
    slots_[i] = s;
    ++size_;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.used) place(s);
    }
  }

  std::vector<Slot> slots_;  // a power of two in size, at most half full
  std::vector<uint32_t> keys_;
  size_t size_ = 0;
};

}  // namespace graft
