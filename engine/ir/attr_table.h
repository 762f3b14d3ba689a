// AttrTable: a graph's attribute lists, one copy of each distinct list.
//
// A model has few distinct attribute lists (every 3x3 convolution of a ResNet carries
// stride [1, 1], padding [1, 1], dilation [1, 1], groups 1) and many nodes. Kept per node,
// each list was four allocations to make and to free (the outer vector and one per int
// list), and a rewrite creates one per replacement op. Interned, a node holds a pointer; a
// rewrite that creates an op with attributes it has seen before allocates nothing; and two
// nodes of one graph have identical attributes exactly when their pointers are equal, which
// the matcher's predicate memo compares instead of the lists.
//
// "Identical" is attrs_identical: the same kinds and the same bits (-0.0 and 0.0 are two lists,
// a NaN is identical to itself). Lists are never removed: the table lives as long as its graph
// and grows with the number of distinct lists, not of nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/ir/attr.h"
#include "engine/support/probe_slots.h"

namespace graft {

using AttrList = std::vector<AttrValue>;

/// The empty list, for nodes without attributes (placeholders, get_attrs, the output).
inline const AttrList kNoAttrs{};

class AttrTable {
 public:
  AttrTable() = default;
  AttrTable(const AttrTable&) = delete;
  AttrTable& operator=(const AttrTable&) = delete;
  AttrTable(AttrTable&&) = default;
  AttrTable& operator=(AttrTable&&) = default;

  /// The table's list identical to `attrs`, added (copied) when it has none; &kNoAttrs for an
  /// empty list. The pointer stays valid while the table lives, also when the table is moved.
  const AttrList* intern(const AttrList& attrs);
  /// As above; a new list takes `attrs` over (it is left empty), a known one leaves it as it is.
  const AttrList* intern(AttrList&& attrs);

  /// Number of distinct non-empty lists (the empty one is kNoAttrs, not stored).
  size_t size() const { return lists_.size(); }

 private:
  struct Slot {
    size_t hash = 0;
    const AttrList* list = nullptr;  // nullptr: empty slot
    bool occupied() const { return list != nullptr; }
  };
  /// Both intern()s: `List` is const AttrList& (copied when new) or AttrList (moved).
  template <typename List>
  const AttrList* intern_list(List&& attrs);

  std::vector<std::unique_ptr<const AttrList>> lists_;
  ProbeSlots<Slot> slots_;  // the lists by hash_attrs
};

/// A hash of `attrs` consistent with attrs_identical.
uint64_t hash_attrs(const AttrList& attrs);

}  // namespace graft
