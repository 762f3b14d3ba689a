// The memory planner: reuse on chains, validity on random lifetimes (property test), and the
// checker itself rejecting overlapping plans.
#include "runtime/memory_plan.h"

#include <random>

#include <catch2/catch.hpp>

using namespace graft::runtime;

TEST_CASE("memory plan reuses bytes along a chain", "[runtime][memory_plan]") {
  // value i is written at step i and read at step i + 1: at most two live at a time.
  std::vector<BufferRequest> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({1000, i, i + 1});
  MemoryPlan plan = plan_memory(chain);
  CHECK(check_memory_plan(chain, plan) == "");
  CHECK(plan.naive_bytes == 10 * 1024);
  CHECK(plan.live_peak_bytes == 2000);
  CHECK(plan.arena_bytes == 2 * 1024);
}

TEST_CASE("memory plan without reuse gives every buffer its own bytes", "[runtime][memory_plan]") {
  std::vector<BufferRequest> chain;
  for (int i = 0; i < 5; ++i) chain.push_back({100, i, i + 1});
  MemoryPlan plan = plan_memory(chain, /*reuse=*/false);
  CHECK(check_memory_plan(chain, plan) == "");
  CHECK(plan.arena_bytes == plan.naive_bytes);
}

TEST_CASE("memory plan never overlaps live buffers on random lifetimes", "[runtime][memory_plan]") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    std::uniform_int_distribution<int> count(1, 60), step(0, 40), len(0, 12);
    std::uniform_int_distribution<size_t> size(1, 5000);
    std::vector<BufferRequest> requests;
    int n = count(rng);
    for (int i = 0; i < n; ++i) {
      int first = step(rng);
      requests.push_back({size(rng), first, first + len(rng)});
    }
    MemoryPlan plan = plan_memory(requests);
    INFO("trial " << trial);
    REQUIRE(check_memory_plan(requests, plan) == "");
    CHECK(plan.arena_bytes >= plan.live_peak_bytes);
    CHECK(plan.arena_bytes <= plan.naive_bytes);
  }
}

TEST_CASE("check_memory_plan reports overlapping live buffers", "[runtime][memory_plan]") {
  std::vector<BufferRequest> requests = {{100, 0, 2}, {100, 1, 3}, {100, 5, 6}};
  MemoryPlan plan;
  plan.offsets = {0, 64, 0};  // the first two overlap in time and in memory
  plan.arena_bytes = 256;
  CHECK(check_memory_plan(requests, plan) ==
        "buffers 0 and 1 are live at the same time and overlap in memory");
  plan.offsets = {0, 128, 0};  // the third reuses the first's bytes: fine
  CHECK(check_memory_plan(requests, plan) == "");
  plan.offsets = {0, 128, 192};
  CHECK(check_memory_plan(requests, plan) == "buffer 2 ends past the arena");
}
