#include "engine/support/content_hash.h"

#include <algorithm>
#include <cstring>

namespace graft {
namespace {

constexpr uint64_t kMul1 = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kMul2 = 0xbf58476d1ce4e5b9ULL;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/// splitmix64's finaliser: every input bit affects every output bit.
uint64_t avalanche(uint64_t x) {
  x ^= x >> 30;
  x *= kMul2;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ContentHasher::ContentHasher() : lane_{kMul1, kMul2, ~kMul1, ~kMul2}, pending_{} {}

void ContentHasher::mix_block(const char* p) {
  // Four independent lanes keep the multiplier pipeline busy; they are folded in digest().
  for (uint64_t& h : lane_) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = rotl(h ^ (w * kMul1), 31) * kMul2;
    p += 8;
  }
}

void ContentHasher::update(std::string_view bytes) {
  total_ += bytes.size();
  const char* p = bytes.data();
  size_t n = bytes.size();
  if (pending_size_ > 0) {
    size_t take = std::min(n, kBlock - pending_size_);
    std::memcpy(pending_ + pending_size_, p, take);
    pending_size_ += take;
    p += take;
    n -= take;
    if (pending_size_ < kBlock) return;
    mix_block(pending_);
    pending_size_ = 0;
  }
  for (; n >= kBlock; p += kBlock, n -= kBlock) mix_block(p);
  std::memcpy(pending_, p, n);
  pending_size_ = n;
}

uint64_t ContentHasher::digest() const {
  uint64_t h = total_;
  for (uint64_t l : lane_) h = rotl(h ^ avalanche(l), 27) * kMul1;
  for (size_t i = 0; i < pending_size_; ++i) {
    h = (h ^ static_cast<unsigned char>(pending_[i])) * kMul2;
  }
  return avalanche(h);
}

uint64_t content_hash(std::string_view bytes) {
  ContentHasher hasher;
  hasher.update(bytes);
  return hasher.digest();
}

std::string hash_hex(uint64_t hash) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<size_t>(i)] = kDigits[hash & 15];
  return out;
}

}  // namespace graft
