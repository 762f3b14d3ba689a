#include "engine/support/content_hash.h"

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

uint64_t content_hash(std::string_view bytes) {
  // Four independent lanes keep the multiplier pipeline busy; they are folded at the end.
  uint64_t lane[4] = {kMul1, kMul2, ~kMul1, ~kMul2};
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n >= 32) {
    for (uint64_t& h : lane) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = rotl(h ^ (w * kMul1), 31) * kMul2;
      p += 8;
    }
    n -= 32;
  }
  uint64_t h = bytes.size();
  for (uint64_t l : lane) h = rotl(h ^ avalanche(l), 27) * kMul1;
  while (n > 0) {
    unsigned char c = static_cast<unsigned char>(*p++);
    h = (h ^ c) * kMul2;
    --n;
  }
  return avalanche(h);
}

std::string hash_hex(uint64_t hash) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<size_t>(i)] = kDigits[hash & 15];
  return out;
}

}  // namespace graft
