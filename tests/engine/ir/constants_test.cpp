#include "engine/ir/constants.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>

#include "engine/ir/graph.h"

using namespace graft;

namespace {

ConstantTensor tensor_of(float v) { return ConstantTensor::from_floats({1}, {v}); }

std::map<std::string, float> contents(const ConstantStore& store) {
  std::map<std::string, float> out;
  for (const auto& entry : store.all()) out[entry.key] = entry.tensor.f32()[0];
  return out;
}

}  // namespace

TEST_CASE("a constant store sets, replaces, erases and reuses slots", "[engine][constants]") {
  ConstantStore store;
  store.set("a.weight", tensor_of(1));
  store.set("b.weight", tensor_of(2));
  store.set("a.weight", tensor_of(3));  // replaces
  REQUIRE(store.find("a.weight") != nullptr);
  CHECK(store.find("a.weight")->f32()[0] == 3);
  CHECK(store.size() == 2);
  CHECK(store.erase("a.weight"));
  CHECK_FALSE(store.erase("a.weight"));
  CHECK(store.find("a.weight") == nullptr);
  store.set("c.weight", tensor_of(4));  // takes the erased slot
  CHECK(contents(store) == std::map<std::string, float>{{"b.weight", 2}, {"c.weight", 4}});
  CHECK(store.unique_name("c.weight") == "c.weight_1");
  CHECK(store.unique_name("d") == "d");
}

TEST_CASE("a copied constant store is independent of the original", "[engine][constants]") {
  ConstantStore store;
  std::mt19937 rng(3);
  std::map<std::string, float> reference;
  for (int i = 0; i < 2000; ++i) {
    std::string name = "t" + std::to_string(rng() % 500);
    if (rng() % 3 == 0) {
      CHECK(store.erase(name) == (reference.erase(name) > 0));
    } else {
      store.set(name, tensor_of(static_cast<float>(i)));
      reference[name] = static_cast<float>(i);
    }
  }
  REQUIRE(contents(store) == reference);
  ConstantStore copy = store;
  store.erase(reference.begin()->first);
  store.set("only.in.original", tensor_of(-1));
  CHECK(contents(copy) == reference);
  for (const auto& [name, value] : reference) {
    REQUIRE(copy.find(name) != nullptr);
    CHECK(copy.find(name)->f32()[0] == value);
  }
  ConstantStore moved = std::move(copy);  // the index survives a move
  CHECK(contents(moved) == reference);
  CHECK(moved.find(reference.rbegin()->first) != nullptr);
}

TEST_CASE("a constant reference is followed only while it is current", "[engine][constants]") {
  ConstantStore store;
  store.set("w", tensor_of(1));
  store.set("b", tensor_of(2));
  CHECK(store.ref_of("missing").stamp == 0);
  const ConstantRef ref = store.ref_of("w");
  REQUIRE(ref.stamp != 0);
  REQUIRE(store.find("w", ref) != nullptr);
  // Current: the same entry, also after its tensor is replaced under the same name.
  store.set("w", tensor_of(3));
  CHECK(store.find("w", ref)->f32()[0] == 3);
  CHECK(store.ref_of("w").stamp == ref.stamp);
  // Erased: not followed, even once another name takes the slot.
  store.erase("w");
  CHECK(store.find("w", ref) == nullptr);
  store.set("x", tensor_of(4));
  CHECK(store.ref_of("x").slot == ref.slot);
  CHECK(store.find("w", ref) == nullptr);
  // Stored again: found by name through the stale reference, and a new reference differs.
  store.set("w", tensor_of(5));
  REQUIRE(store.find("w", ref) != nullptr);
  CHECK(store.find("w", ref)->f32()[0] == 5);
  CHECK(store.ref_of("w").stamp != ref.stamp);
  // A store assigned over this one: its entries are new, the old reference is not followed.
  const ConstantRef before = store.ref_of("w");
  ConstantStore other;
  other.set("b", tensor_of(6));
  other.set("w", tensor_of(7));
  store = other;
  REQUIRE(store.find("w", before) != nullptr);
  CHECK(store.find("w", before)->f32()[0] == 7);
  CHECK(store.ref_of("w").stamp != before.stamp);
}

TEST_CASE("store_unless_read replaces an unread constant and leaves a read one",
          "[engine][constants]") {
  Graph g;
  ConstantStore& store = g.constants();
  store.set("bn.weight", tensor_of(1));
  store.set("bn.bias", tensor_of(2));
  Node* reader = g.add_get_attr("bias", "bn.bias");
  const ConstantRef old_weight = store.ref_of("bn.weight");

  // Absent: stored, and the reference returned is the store's current one.
  ConstantRef fresh = store.store_unless_read("conv.weight", tensor_of(3));
  CHECK(fresh.stamp == store.ref_of("conv.weight").stamp);
  // Present and unread: replaced, as erase + set would — old references go stale.
  ConstantRef replaced = store.store_unless_read("bn.weight", tensor_of(4));
  REQUIRE(replaced.stamp != 0);
  CHECK(replaced.stamp != old_weight.stamp);
  CHECK(store.ref_of("bn.weight").stamp == replaced.stamp);
  CHECK(store.find("bn.weight")->f32()[0] == 4);
  // Present and read by a live get_attr: nothing stored, the tensor left to the caller.
  ConstantTensor kept = tensor_of(5);
  CHECK(store.store_unless_read("bn.bias", std::move(kept)).stamp == 0);
  CHECK(kept.nbytes == sizeof(float));  // NOLINT(bugprone-use-after-move): not moved from
  CHECK(store.find("bn.bias")->f32()[0] == 2);
  CHECK(contents(store).size() == 3);

  // A get_attr pointed at the new entry through the reference counts as its reader.
  Node* folded = g.add_get_attr("folded", "conv.weight");
  g.set_constant(folded, "bn.weight", replaced);
  CHECK(store.readers("bn.weight") == 1);
  CHECK(store.readers("conv.weight") == 0);
  CHECK(g.constant(*folded)->f32()[0] == 4);
  CHECK(g.constant(*reader)->f32()[0] == 2);
}
