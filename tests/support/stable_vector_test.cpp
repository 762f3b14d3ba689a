#include "engine/support/stable_vector.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace graft;

TEST_CASE("a stable vector indexes across chunks and never moves an element",
          "[support][stable_vector]") {
  StableVector<std::string, 2> v;  // chunks of four: growth is exercised early
  std::vector<const std::string*> addresses;
  for (int i = 0; i < 50; ++i) {
    std::string& s = v.emplace_back();
    CHECK(s.empty());
    s = "item " + std::to_string(i);
    addresses.push_back(&s);
  }
  REQUIRE(v.size() == 50);
  for (size_t i = 0; i < v.size(); ++i) {
    CHECK(v[i] == "item " + std::to_string(i));
    CHECK(&v[i] == addresses[i]);
  }
  // A move takes the chunks along: the addresses stay valid.
  StableVector<std::string, 2> moved = std::move(v);
  CHECK(&moved[17] == addresses[17]);
  CHECK(moved[49] == "item 49");
  moved.clear();
  CHECK(moved.empty());
  CHECK(moved.emplace_back().empty());
  CHECK(moved.size() == 1);
}
