// The binder's choices and conflict sets (conflict-directed backjumping): which choices each
// binding depends on, which choices a failure depends on, and when a choice point may give up
// because no other attempt of it can succeed. Used by engine/match/match_binder.cpp; docs/matcher.md
// explains the search.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "engine/support/check.h"

namespace graft {

inline constexpr uint32_t kNoSlot = UINT32_MAX;    // no binding to depend on
inline constexpr uint32_t kNoChoice = UINT32_MAX;  // no choice to depend on

/// What a binding depends on: the reason of a slot bound before, plus a choice.
struct Origin {
  uint32_t slot = kNoSlot;
  uint32_t choice = kNoChoice;
};

/// Choices and conflict sets, for conflict-directed backjumping. A *choice point* is a pattern
/// node bound with more than one attempt (operand orders, alternatives), or the join of a
/// pattern node through the users of a value; it is numbered by its depth, the number of
/// choice points enclosing it in the search. Every binding records the choices it depends on
/// (its reason), and every failure leaves the choices it depends on in the conflict set. When
/// an attempt fails for reasons that do not include its choice point, the other attempts
/// would fail the same way: the choice point gives up at once and passes the conflict set up
/// (it *backjumps*). So a failure in one part of a pattern does not retry every combination
/// of orders in parts it does not depend on.
///
/// Reasons and conflict sets are bit sets of `words` 64-bit words, a bit per choice point. The
/// caller keeps the reasons in one vector, `words` words per slot (engine/match/bind_plan.h), so
/// that copying a binding copies them.
class Choices {
 public:
  /// For a search with `words`-word bit sets (0: the rule has no choices, nothing is
  /// tracked) and up to `max_depth` nested choice points.
  void reset(size_t words, size_t max_depth) {
    words_ = words;
    depth_ = 0;
    max_depth_ = max_depth;
    if (words == 0) return;
    conflict_.assign(words, 0);
    accumulated_.assign(words * (max_depth + 1), 0);
  }

  /// Sets `slot`'s reason to `origin`'s.
  void set_reason(std::vector<uint64_t>& reasons, uint32_t slot, Origin origin) const {
    if (words_ != 0) copy_reason(reasons, slot, origin);
  }
  /// Makes the conflict set the union of the reasons of `origin` and `slots`. Returns false,
  /// for `return conflict(…)` at a failure.
  bool conflict(const std::vector<uint64_t>& reasons, Origin origin,
                std::initializer_list<uint32_t> slots = {}) {
    if (words_ != 0) set_conflict(reasons, origin, slots.begin(), slots.end());
    return false;
  }
  bool conflict(const std::vector<uint64_t>& reasons, const std::vector<uint32_t>& slots) {
    if (words_ != 0) set_conflict(reasons, Origin{}, slots.data(), slots.data() + slots.size());
    return false;
  }
  /// A failure that depends on everything (the budget, a disconnected pattern).
  bool conflict_all() {
    std::fill(conflict_.begin(), conflict_.end(), ~uint64_t{0});
    return false;
  }

  /// One choice point, for the scope of its attempts.
  class Point {
   public:
    /// `origin`: what the set of attempts depends on (the graph node being bound).
    Point(Choices& choices, const std::vector<uint64_t>& reasons, Origin origin)
        : choices_(choices), index_(static_cast<uint32_t>(choices.depth_++)) {
      GRAFT_DCHECK(index_ <= choices_.max_depth_);
      if (choices_.words_ == 0) return;
      uint64_t* acc = accumulated();
      std::fill(acc, acc + choices_.words_, 0);
      choices_.add(acc, reasons, origin.slot);
      set_bit(acc, origin.choice);
    }
    ~Point() { choices_.depth_ = index_; }
    Point(const Point&) = delete;
    Point& operator=(const Point&) = delete;

    uint32_t index() const { return index_; }
    /// After a failed attempt: whether another attempt may succeed, that is whether the
    /// failure depends on this choice. Collects the failure's conflict set.
    bool worth_another() {
      size_t words = choices_.words_;
      if (words == 0) return true;
      uint64_t bit = uint64_t{1} << (index_ % 64);
      if ((choices_.conflict_[index_ / 64] & bit) == 0) return false;
      uint64_t* acc = accumulated();
      for (size_t w = 0; w < words; ++w) acc[w] |= choices_.conflict_[w];
      acc[index_ / 64] &= ~bit;
      return true;
    }
    /// Every attempt failed: the conflict set is what they depended on, this choice aside.
    void exhausted() {
      if (choices_.words_ == 0) return;
      const uint64_t* acc = accumulated();
      std::copy(acc, acc + choices_.words_, choices_.conflict_.begin());
    }

   private:
    uint64_t* accumulated() { return &choices_.accumulated_[index_ * choices_.words_]; }
    Choices& choices_;
    uint32_t index_;
  };

 private:
  // Out of line: a rule without choices only pays for the test of words_.
  void copy_reason(std::vector<uint64_t>& reasons, uint32_t slot, Origin origin) const;
  void set_conflict(const std::vector<uint64_t>& reasons, Origin origin, const uint32_t* slots,
                    const uint32_t* end);

  void add(uint64_t* to, const std::vector<uint64_t>& reasons, uint32_t slot) const {
    if (slot == kNoSlot) return;
    const uint64_t* from = &reasons[slot * words_];
    for (size_t w = 0; w < words_; ++w) to[w] |= from[w];
  }
  static void set_bit(uint64_t* set, uint32_t bit) {
    if (bit != kNoChoice) set[bit / 64] |= uint64_t{1} << (bit % 64);
  }

  size_t words_ = 0;
  size_t depth_ = 0;
  size_t max_depth_ = 0;
  std::vector<uint64_t> conflict_;
  std::vector<uint64_t> accumulated_;  // per depth: its choice point's conflict set so far
};

}  // namespace graft
