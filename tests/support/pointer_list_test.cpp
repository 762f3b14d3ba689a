#include "engine/support/pointer_list.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace graft;

namespace {

std::vector<int*> items_of(const PointerList<int>& list) { return {list.begin(), list.end()}; }

}  // namespace

TEST_CASE("a pointer list keeps order through inline and heap storage", "[support][pointer_list]") {
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

TEST_CASE("a pointer list copies and moves in both storage modes", "[support][pointer_list]") {
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

TEST_CASE("a pointer list takes the space of a vector", "[support][pointer_list]") {
  CHECK(sizeof(PointerList<int>) == sizeof(std::vector<int*>));
}
