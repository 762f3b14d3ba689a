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

TEST_CASE("a full name index drops stale items before it grows", "[support]") {
  // As a graph's index does with erased nodes: most items go stale, new ones keep coming.
  struct Item {
    std::string label;
    bool stale = false;
    const std::string& name() const { return label; }
  };
  auto stale = [](const Item* i) { return i->stale; };
  NameIndex<Item> index;
  std::vector<std::unique_ptr<Item>> items;
  size_t peak = 0;
  for (int i = 0; i < 20000; ++i) {
    items.push_back(std::make_unique<Item>(Item{"n" + std::to_string(i)}));
    if (i >= 10) items[static_cast<size_t>(i) - 10]->stale = true;  // ten live at a time
    index.make_room(stale);
    REQUIRE(index.insert_unless_taken(items.back().get(), [](const Item*) { return true; }));
    peak = std::max(peak, index.size());
  }
  // Without dropping, all 20000 would be indexed; with it, the index holds about the live
  // items plus those gone stale since the last rebuild.
  CHECK(peak < 200);
  for (size_t i = 0; i < items.size(); ++i) {
    const Item* found = index.find(items[i]->label);
    if (!items[i]->stale) CHECK(found == items[i].get());  // live items are never dropped
    if (found != nullptr) CHECK(found == items[i].get());
  }
}
