#include "engine/support/inline_vector.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace graft;

namespace {

std::vector<int*> items_of(const PointerList<int>& list) { return {list.begin(), list.end()}; }

// Like a node's operand: trivially copyable, with default member initialisers.
struct Slot {
  int kind = 7;
  double value = 0.5;
  bool operator==(const Slot&) const = default;
};

template <uint32_t N>
std::vector<Slot> slots_of(const InlineVector<Slot, N>& v) {
  return {v.begin(), v.end()};
}

std::vector<Slot> numbered(int n) {
  std::vector<Slot> slots;
  for (int i = 0; i < n; ++i) slots.push_back({i, i * 0.25});
  return slots;
}

}  // namespace

TEST_CASE("a pointer list keeps order through inline and heap storage",
          "[support][inline_vector]") {
  int v[40] = {};
  PointerList<int> list;
  CHECK(list.empty());
  std::vector<int*> want;
  for (int i = 0; i < 40; ++i) {  // inline (2), then 4, 8, 16, 32, 64 on the heap
    list.push_back(&v[i]);
    want.push_back(&v[i]);
    REQUIRE(items_of(list) == want);
  }
  CHECK(list.size() == 40);
  CHECK(list[39] == &v[39]);
  // Erasing keeps the order of the rest, at the front, middle and back.
  for (size_t at : {size_t{0}, size_t{17}, size_t{37}}) {
    list.erase_at(at);
    want.erase(want.begin() + static_cast<std::ptrdiff_t>(at));
    REQUIRE(items_of(list) == want);
  }
  CHECK(list.span().size() == want.size());
  list.release();
  CHECK(list.empty());
  list.push_back(&v[3]);
  CHECK(items_of(list) == std::vector<int*>{&v[3]});
}

TEST_CASE("a pointer list copies and moves in both storage modes", "[support][inline_vector]") {
  int v[5] = {};
  for (size_t n : {size_t{1}, size_t{2}, size_t{5}}) {
    PointerList<int> a;
    for (size_t i = 0; i < n; ++i) a.push_back(&v[i]);
    const std::vector<int*> want = items_of(a);

    PointerList<int> copy(a);
    CHECK(items_of(copy) == want);
    copy.push_back(&v[0]);
    CHECK(items_of(a) == want);  // independent

    PointerList<int> moved(std::move(a));
    CHECK(items_of(moved) == want);
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty
    a.push_back(&v[4]);
    CHECK(a.size() == 1);

    PointerList<int> assigned;
    assigned.push_back(&v[1]);
    assigned = moved;
    CHECK(items_of(assigned) == want);
    assigned = std::move(copy);
    CHECK(assigned.size() == n + 1);
  }
}

TEST_CASE("a pointer list takes the space of a vector", "[support][inline_vector]") {
  CHECK(sizeof(PointerList<int>) == sizeof(std::vector<int*>));
}

TEST_CASE("an inline vector assigns, mutates and grows past its inline capacity",
          "[support][inline_vector]") {
  InlineVector<Slot, 3> v;
  CHECK(v.empty());
  // Inline, then heap, then shorter again (in the heap block it keeps), then inline-sized.
  for (int n : {2, 3, 7, 4, 12, 0, 1}) {
    std::vector<Slot> want = numbered(n);
    v.assign(want);
    REQUIRE(slots_of(v) == want);
    if (n > 0) {
      v[static_cast<size_t>(n - 1)].kind = 100;
      want.back().kind = 100;
      REQUIRE(slots_of(v) == want);
    }
  }
  InlineVector<Slot, 3> built(numbered(2));
  for (const Slot& s : numbered(9)) built.push_back(s);
  std::vector<Slot> want = numbered(2);
  for (const Slot& s : numbered(9)) want.push_back(s);
  CHECK(slots_of(built) == want);
  InlineVector<Slot, 3> copy = built;
  copy[0].value = -1;
  CHECK(slots_of(built) == want);  // independent
  CHECK(copy[0].value == -1);
  InlineVector<Slot, 3> small(numbered(1));
  small = copy;  // an inline vector copying a heap one
  CHECK(slots_of(small) == slots_of(copy));
  copy = InlineVector<Slot, 3>(numbered(2));  // and the other way, by move
  CHECK(slots_of(copy) == numbered(2));
}
