#include "engine/support/chunk_pool.h"

#include <array>
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <string>

using namespace graft;

namespace {

struct Item {
  int value = 0;
  std::string text;  // owned memory, to see release() reset it
};

}  // namespace

TEST_CASE("a chunk pool hands out stable, distinct, default-constructed objects",
          "[support][chunk_pool]") {
  ChunkPool<Item> pool;
  std::vector<Item*> items;
  std::set<Item*> distinct;
  for (int i = 0; i < 20000; ++i) {  // several chunks, up to the largest size
    Item* p = pool.acquire();
    CHECK(p->value == 0);
    CHECK(p->text.empty());
    p->value = i;
    p->text = "item number " + std::to_string(i);
    items.push_back(p);
    distinct.insert(p);
  }
  CHECK(distinct.size() == items.size());
  // Earlier objects did not move while later chunks were added.
  for (int i = 0; i < 20000; i += 997) {
    CHECK(items[static_cast<size_t>(i)]->value == i);
    CHECK(items[static_cast<size_t>(i)]->text == "item number " + std::to_string(i));
  }
}

TEST_CASE("a chunk pool resets released objects and reuses them first", "[support][chunk_pool]") {
  ChunkPool<Item> pool;
  Item* a = pool.acquire();
  Item* b = pool.acquire();
  a->value = 7;
  a->text = std::string(100, 'x');
  b->value = 8;
  pool.release(a);
  CHECK(a->value == 0);
  CHECK(a->text.empty());
  Item* c = pool.acquire();
  CHECK(c == a);
  CHECK(b->value == 8);
  Item* d = pool.acquire();
  CHECK(d != a);
  CHECK(d != b);
}

namespace {

/// Big enough that the largest chunks (4096 of them) are populated before construction.
struct CountedItem {
  static inline int alive = 0;
  static inline int throw_at = -1;  // the constructor call that throws; -1: none
  static inline int constructed = 0;
  CountedItem() {
    if (constructed++ == throw_at) throw std::runtime_error("no");
    ++alive;
  }
  CountedItem(const CountedItem& o) : payload(o.payload), text(o.text) { ++alive; }
  CountedItem& operator=(const CountedItem&) = default;
  ~CountedItem() { --alive; }
  std::array<double, 16> payload{};
  std::string text;
};

}  // namespace

TEST_CASE("a chunk pool's populated chunks construct and destroy every object once",
          "[support][chunk_pool]") {
  CountedItem::alive = 0;
  CountedItem::constructed = 0;
  CountedItem::throw_at = -1;
  {
    ChunkPool<CountedItem> pool;
    for (int i = 0; i < 20000; ++i) {
      CountedItem* p = pool.acquire();
      CHECK(p->payload[15] == 0.0);  // value-initialised, also in the populated chunks
      p->payload[15] = 1.0;
      p->text = std::string(40, 'y');  // owned memory: a missed destructor leaks (ASan)
    }
    CHECK(CountedItem::alive == CountedItem::constructed);
    CHECK(CountedItem::alive >= 20000);
  }
  CHECK(CountedItem::alive == 0);
}

TEST_CASE("a chunk pool whose constructor throws destroys what it made", "[support][chunk_pool]") {
  CountedItem::alive = 0;
  CountedItem::constructed = 0;
  // Chunks of 16, 32, …, 2048 objects hold 4080, then come chunks of 4096 (populated ones):
  // throw in the middle of the first of those, the step up in size.
  CountedItem::throw_at = 4080 + 1000;
  {
    ChunkPool<CountedItem> pool;
    bool threw = false;
    try {
      for (int i = 0; i < 20000; ++i) pool.acquire();
    } catch (const std::runtime_error&) {
      threw = true;
    }
    CHECK(threw);
    CHECK(CountedItem::alive == 4080);  // the failed chunk's 1000 objects were destroyed
    // The pool is as it was before the failed chunk (not sized for a 4096 chunk while its last
    // one holds 2048): it goes on handing out constructed objects inside real chunks (ASan
    // sees a write past one; the count, an object never constructed), none of them twice.
    CountedItem::throw_at = -1;
    std::set<CountedItem*> distinct;
    for (int i = 0; i < 5000; ++i) {
      CountedItem* p = pool.acquire();
      CHECK(p->text.empty());
      p->text = std::string(40, 'z');
      distinct.insert(p);
    }
    CHECK(distinct.size() == 5000);
    CHECK(CountedItem::alive == 4080 + 2 * 4096);  // 5000 objects: two new chunks of 4096
  }
  CHECK(CountedItem::alive == 0);
}
