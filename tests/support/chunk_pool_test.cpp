#include "engine/support/chunk_pool.h"

#include <catch2/catch.hpp>
#include <set>
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
