#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/ir/shape.h"
#include "engine/ops/op_registry.h"

using namespace graft;

namespace {

/// Types no other test makes: the table is process-wide and never shrinks, so counts are
/// compared before and after.
TensorType fresh_f32(int64_t i, Shape tail = {}) {
  Shape shape = {1'000'003 + i};
  shape.insert(shape.end(), tail.begin(), tail.end());
  return {DType::kFloat32, std::move(shape)};
}

}  // namespace

TEST_CASE("equal types are one object, and any difference makes another", "[engine][unique_type]") {
  const size_t before = unique_type_count();
  const TensorType base = fresh_f32(0, {3, 4});
  const TensorType* a = unique_type(base);
  CHECK(*a == base);
  CHECK(a != &base);  // the table's own copy
  CHECK(unique_type(fresh_f32(0, {3, 4})) == a);
  CHECK(unique_type_count() == before + 1);

  std::vector<TensorType> variants = {
      {DType::kFloat64, base.shape},                        // dtype
      fresh_f32(0, {3, 5}),                                 // one dim
      fresh_f32(0, {3, 4, 1}),                              // rank, same element count
      fresh_f32(0, {3}),                                    // a prefix
      fresh_f32(0, {dim_symbol("unique_type_test_N"), 4}),  // a symbol where a size was
      fresh_f32(0, {4, 3}),                                 // the same dims in another order
  };
  std::vector<const TensorType*> seen = {a};
  for (const TensorType& v : variants) {
    const TensorType* p = unique_type(v);
    CHECK(*p == v);
    for (const TensorType* q : seen) CHECK(p != q);
    seen.push_back(p);
  }
  CHECK(unique_type_count() == before + 1 + variants.size());
  // Scalars: rank 0 is not [1].
  CHECK(unique_type({DType::kFloat32, {}}) != unique_type({DType::kFloat32, {1}}));
}

TEST_CASE("uniqued types stay where they are as the table grows", "[engine][unique_type]") {
  std::vector<const TensorType*> first;
  for (int64_t i = 0; i < 5000; ++i) first.push_back(unique_type(fresh_f32(100 + i, {i})));
  for (int64_t i = 0; i < 5000; ++i) {
    CHECK(*first[i] == fresh_f32(100 + i, {i}));
    CHECK(unique_type(fresh_f32(100 + i, {i})) == first[i]);
  }
}

TEST_CASE("threads uniquing the same types get the same objects", "[engine][unique_type]") {
  constexpr int kThreads = 4;
  constexpr int64_t kTypes = 500;
  const size_t before = unique_type_count();
  std::vector<std::vector<const TensorType*>> got(kThreads, std::vector<const TensorType*>(kTypes));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t k = 0; k < kTypes; ++k) {
        int64_t i = t % 2 == 0 ? k : kTypes - 1 - k;  // half of them walk backwards
        got[t][i] = unique_type(fresh_f32(10'000 + i, {2, 2}));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  CHECK(unique_type_count() == before + kTypes);
  for (int64_t i = 0; i < kTypes; ++i) {
    for (int t = 1; t < kThreads; ++t) CHECK(got[t][i] == got[0][i]);
    CHECK(*got[0][i] == fresh_f32(10'000 + i, {2, 2}));
  }
}

TEST_CASE("nodes of equal types share one, clones too", "[engine][unique_type]") {
  Graph g;
  TensorType t{DType::kFloat32, {2, 8}};
  Node* x = g.add_placeholder("x", t);
  Node* y = g.add_placeholder("y", TensorType{DType::kFloat32, {2, 8}});
  Node* z = g.add_placeholder("z", std::nullopt);
  t.shape[0] = 7;  // the nodes hold the table's copy, not the caller's
  REQUIRE(x->type() != nullptr);
  CHECK(x->type() == y->type());
  CHECK(x->type()->shape == Shape{2, 8});
  CHECK(z->type() == nullptr);
  x->meta().set_type(t);
  CHECK(x->type()->shape == Shape{7, 8});
  CHECK(y->type()->shape == Shape{2, 8});
  x->meta().set_type(std::optional<TensorType>{});
  CHECK(x->type() == nullptr);

  std::vector<Node*> map;
  std::unique_ptr<Graph> copy = g.clone(&map);
  CHECK(map[y->id()]->type() == y->type());
  CHECK(map[z->id()]->type() == nullptr);
}

TEST_CASE("is_unique_type tells the table's copies from others", "[engine][unique_type]") {
  const TensorType local = fresh_f32(20'000, {3});
  const TensorType* uniqued = unique_type(local);
  CHECK(is_unique_type(uniqued));
  CHECK_FALSE(is_unique_type(&local));  // equal, but not the table's
  CHECK_FALSE(is_unique_type(nullptr));
}
