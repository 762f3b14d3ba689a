#include "eval/allocation.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "eval/tensor.h"

using namespace graft::eval;

namespace {

auto no_description = [] { return std::string("a test buffer"); };

uintptr_t address(const std::shared_ptr<void>& p) { return reinterpret_cast<uintptr_t>(p.get()); }

}  // namespace

TEST_CASE("an arena hands out aligned, disjoint buffers that outlive it", "[runtime][allocation]") {
  std::vector<std::shared_ptr<void>> buffers;
  std::vector<size_t> sizes;
  {
    BufferArena arena;
    // Enough to fill more than one 2 MiB chunk, with sizes that are not multiples of 64.
    for (size_t i = 0; i < 3000; ++i) {
      size_t bytes = 1 + (i * 977) % 3000;
      buffers.push_back(arena.allocate(bytes, no_description));
      sizes.push_back(bytes);
      std::memset(buffers.back().get(), static_cast<int>(i % 251), bytes);
    }
    buffers.push_back(arena.allocate(0, no_description));  // a zero-byte request still gets one
    sizes.push_back(0);
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    REQUIRE(buffers[i] != nullptr);
    CHECK(address(buffers[i]) % 64 == 0);
  }
  // No two buffers overlap, and each still holds what was written (the arena is gone).
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return address(buffers[a]) < address(buffers[b]); });
  for (size_t k = 1; k < order.size(); ++k) {
    size_t prev = order[k - 1], cur = order[k];
    CHECK(address(buffers[prev]) + std::max<size_t>(sizes[prev], 1) <= address(buffers[cur]));
  }
  for (size_t i = 0; i + 1 < buffers.size(); ++i) {
    const auto* bytes = static_cast<const unsigned char*>(buffers[i].get());
    REQUIRE(bytes[0] == i % 251);
    REQUIRE(bytes[sizes[i] - 1] == i % 251);
  }
}

TEST_CASE("an arena gives large requests their own buffer", "[runtime][allocation]") {
  BufferArena arena;
  std::shared_ptr<void> small = arena.allocate(64, no_description);
  std::shared_ptr<void> large = arena.allocate(size_t{1} << 20, no_description);
  std::shared_ptr<void> next = arena.allocate(64, no_description);
  CHECK(address(next) == address(small) + 64);  // the large one did not take chunk space
  CHECK(small.use_count() == next.use_count());  // the chunk's shared count
  CHECK(large.use_count() == 1);
}

TEST_CASE("an arena refuses a request larger than the machine's memory", "[runtime][allocation]") {
  BufferArena arena;
  CHECK_THROWS_AS(arena.allocate(size_t{1} << 62, no_description), AllocationError);
  // Near SIZE_MAX, rounding up to the alignment would wrap to a few bytes.
  CHECK_THROWS_AS(arena.allocate(SIZE_MAX - 10, no_description), AllocationError);
}

TEST_CASE("an arena's chunks are reused once their buffers are gone, a couple at most",
          "[runtime][allocation]") {
  const size_t per_chunk = BufferArena::kChunkBytes / 1024;  // 1 KiB buffers
  std::vector<uintptr_t> starts;                             // chunks are aligned to their size
  {
    BufferArena arena;
    std::vector<std::shared_ptr<void>> buffers;
    for (size_t i = 0; i < 3 * per_chunk; ++i) {  // three chunks, taking any spare ones first
      buffers.push_back(arena.allocate(1024, no_description));
      if (address(buffers.back()) % BufferArena::kChunkBytes == 0)
        starts.push_back(address(buffers.back()));
    }
    REQUIRE(starts.size() == 3);
    CHECK(BufferArena::spare_chunk_count() == 0);
  }
  // The arena and every buffer are gone: two chunks wait, the third was freed.
  CHECK(BufferArena::spare_chunk_count() == 2);
  BufferArena next;
  std::shared_ptr<void> b = next.allocate(100, no_description);
  CHECK(std::find(starts.begin(), starts.end(), address(b)) != starts.end());
  CHECK(BufferArena::spare_chunk_count() == 1);
  // A reused chunk is writable (a quarter of it, past the first buffer, here).
  std::shared_ptr<void> rest = next.allocate(BufferArena::kChunkBytes / 4, no_description);
  std::memset(rest.get(), 1, BufferArena::kChunkBytes / 4);
}

TEST_CASE("a tensor whose byte count overflows is refused as too large, not wrapped",
          "[runtime][allocation]") {
  using graft::DType;
  try {
    (void)Tensor::zeros(DType::kFloat32, {999999999999999, 999999999999999});
    FAIL("allocated");
  } catch (const AllocationError& e) {
    CHECK(std::string(e.what()) ==
          "float32[999999999999999, 999999999999999] would take more than 256 TiB, the limit for "
          "one tensor (its element count overflows int64)");
  }
  // 2^62 float64 elements: the count fits int64, the bytes do not.
  CHECK_THROWS_WITH(Tensor::zeros(DType::kFloat64, {int64_t{1} << 62}),
                    "float64[4611686018427387904] would take more than 256 TiB, the limit for one "
                    "tensor");
}

TEST_CASE("an empty tensor whose other dims multiply past int64 has no elements",
          "[runtime][allocation]") {
  // fuzz_npy found this: [2^31, 2^31, 2^31, 0] allocates nothing, and its element count is 0
  // whatever the other dims would multiply to.
  const int64_t big = int64_t{1} << 31;
  Tensor t = Tensor::zeros(graft::DType::kFloat32, {big, big, big, 0});
  CHECK(t.numel() == 0);
  CHECK(Tensor::zeros(graft::DType::kFloat32, {0, big, big, big}).numel() == 0);
}

TEST_CASE("buffers of 2 MiB and more start on a huge-page boundary, smaller ones as asked",
          "[runtime][allocation]") {
  // The start is what graft controls; whether the kernel then backs the buffer with huge pages
  // depends on the machine's transparent-huge-page setting.
  constexpr size_t kHugePage = size_t{2} << 20;
  for (size_t bytes : {kHugePage, 3 * kHugePage + 100, size_t{40} << 20}) {
    std::shared_ptr<void> big = allocate_buffer(bytes, 64, true, no_description);
    INFO(bytes << " bytes");
    CHECK(address(big) % kHugePage == 0);
    const auto* p = static_cast<const unsigned char*>(big.get());
    CHECK(p[0] == 0);
    CHECK(p[bytes - 1] == 0);  // zero-filled to the last byte
  }
  std::shared_ptr<void> small = allocate_buffer(4096, 64, false, no_description);
  CHECK(address(small) % 64 == 0);
}
