#include "engine/support/name_index.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <random>
#include <string>

using namespace graft;

namespace {

struct Named {
  std::string label;
  const std::string& name() const { return label; }
};

}  // namespace

TEST_CASE("a name index finds, replaces and erases items by their own name", "[support]") {
  NameIndex<Named> index;
  Named a{"conv"}, b{"relu"}, a2{"conv"};
  CHECK(index.find("conv") == nullptr);
  index.insert_or_assign(&a);
  index.insert_or_assign(&b);
  CHECK(index.find("conv") == &a);
  CHECK(index.find("relu") == &b);
  CHECK(index.find("con") == nullptr);
  index.insert_or_assign(&a2);  // same name: replaces
  CHECK(index.find("conv") == &a2);
  CHECK(index.size() == 2);
  index.erase("conv");
  CHECK(index.find("conv") == nullptr);
  CHECK(index.find("relu") == &b);
  index.erase("absent");
  CHECK(index.size() == 1);
}

TEST_CASE("a name index inserts unless the name is taken", "[support]") {
  NameIndex<Named> index;
  Named a{"conv"}, a2{"conv"}, a3{"conv"}, b{"relu"};
  CHECK(index.insert_unless_taken(&a, [](const Named*) { return true; }));
  CHECK(index.find("conv") == &a);
  // Taken: refused, the index unchanged.
  CHECK_FALSE(index.insert_unless_taken(&a2, [](const Named*) { return true; }));
  CHECK(index.find("conv") == &a);
  // Held by an item the caller calls free (a dead node): replaced.
  CHECK(index.insert_unless_taken(&a3, [&](const Named* n) { return n != &a; }));
  CHECK(index.find("conv") == &a3);
  CHECK(index.insert_unless_taken(&b, [](const Named*) { return true; }));
  CHECK(index.size() == 2);
  // Many inserts through growth: each is found afterwards.
  std::vector<std::unique_ptr<Named>> many;
  for (int i = 0; i < 500; ++i) {
    many.push_back(std::make_unique<Named>(Named{"n" + std::to_string(i)}));
    REQUIRE(index.insert_unless_taken(many.back().get(), [](const Named*) { return true; }));
  }
  for (const auto& n : many) CHECK(index.find(n->label) == n.get());
  CHECK(index.size() == 502);
}

// Random inserts, erases and erase_if against std::map: long probe chains, wrap-around at the
// table's end and backward-shift deletion all happen at these sizes (the table starts at 64).
TEST_CASE("a name index agrees with std::map under random inserts and erases", "[support]") {
  std::mt19937 rng(7);
  std::vector<std::unique_ptr<Named>> owned;
  NameIndex<Named> index;
  std::map<std::string, Named*> reference;
  for (int step = 0; step < 20000; ++step) {
    std::string name = "n" + std::to_string(rng() % 3000);
    switch (rng() % 4) {
      case 0:
      case 1: {
        owned.push_back(std::make_unique<Named>(Named{name}));
        index.insert_or_assign(owned.back().get());
        reference[name] = owned.back().get();
        break;
      }
      case 2:
        index.erase(name);
        reference.erase(name);
        break;
      default: {
        auto it = reference.find(name);
        REQUIRE(index.find(name) == (it == reference.end() ? nullptr : it->second));
      }
    }
    if (step == 15000) {  // drop the odd-numbered names
      auto odd = [](const Named* n) { return std::stoi(n->name().substr(1)) % 2 == 1; };
      index.erase_if(odd);
      std::erase_if(reference, [&](const auto& entry) { return odd(entry.second); });
    }
  }
  REQUIRE(index.size() == reference.size());
  for (int i = 0; i < 3000; ++i) {
    std::string name = "n" + std::to_string(i);
    auto it = reference.find(name);
    REQUIRE(index.find(name) == (it == reference.end() ? nullptr : it->second));
  }
}
