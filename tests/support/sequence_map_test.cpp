#include "engine/support/sequence_map.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

using namespace graft;

TEST_CASE("a sequence map finds exactly the keys stored, through growth",
          "[support][sequence_map]") {
  SequenceMap map;
  std::vector<uint32_t> empty;
  CHECK(map.find(empty) == nullptr);
  // Keys that differ in one word, in length only, or by a swap of two words, as transition
  // keys do (op, predicate bits, operand count, operand states).
  std::map<std::vector<uint32_t>, uint32_t> want;
  std::mt19937 rng(7);
  for (uint32_t i = 0; i < 3000; ++i) {
    std::vector<uint32_t> key = {i % 17, 0, 0, i % 4};
    for (uint32_t k = 0; k < i % 4; ++k) key.push_back(rng() % 5);
    if (want.count(key) != 0) continue;
    map.insert(key, i);
    want[key] = i;
  }
  map.insert(empty, 99);
  want[empty] = 99;
  CHECK(map.size() == want.size());
  for (const auto& [key, value] : want) {
    const uint32_t* found = map.find(key);
    REQUIRE(found != nullptr);
    CHECK(*found == value);
    std::vector<uint32_t> longer = key;
    longer.push_back(0);
    if (want.count(longer) == 0) CHECK(map.find(longer) == nullptr);
    if (key.size() >= 6 && key[4] != key[5]) {
      std::vector<uint32_t> swapped = key;
      std::swap(swapped[4], swapped[5]);
      if (want.count(swapped) == 0) CHECK(map.find(swapped) == nullptr);
    }
  }
}
