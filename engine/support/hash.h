// Hashes for the project's in-memory tables (NameIndex, SequenceMap, StringMap): keys read a
// word at a time and mixed with multiplications, then finalised so that every bit of the key
// reaches the low bits a power-of-two table indexes by.
//
// std::hash<std::string_view> (libstdc++'s murmur-style _Hash_bytes) is an out-of-line byte
// loop, and a rewrite hashes the 10–20-character names it creates by the hundred thousand
// ("batch_norm_1234") when it makes them unique; this one is inlined and reads words. Like
// std::hash it is unseeded: these tables index names from a model file, not network input.
// The values are not stable across versions of graft and must never be stored.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace graft {
namespace hash_detail {

inline constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;

inline uint64_t mix(uint64_t h, uint64_t word) {
  return std::rotl((h ^ word) * 0xbf58476d1ce4e5b9ull, 29);
}

/// The murmur3 finaliser: spreads the high bits into the low ones.
inline uint64_t finish(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

inline uint64_t load64(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

inline uint32_t load32(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

}  // namespace hash_detail

/// A hash of the bytes of `s`.
inline size_t hash_string(std::string_view s) {
  using namespace hash_detail;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = mix(kMul, n);  // mixed before the bytes: XORed into them, it could cancel a byte
  if (n >= 8) {
    for (; n > 8; p += 8, n -= 8) h = mix(h, load64(p));
    h = mix(h, load64(p + n - 8));  // the last eight bytes, overlapping what came before
  } else if (n >= 4) {
    h = mix(h, (uint64_t{load32(p)} << 32) | load32(p + n - 4));
  } else if (n > 0) {
    uint64_t w = static_cast<unsigned char>(p[0]);
    w = (w << 8) | static_cast<unsigned char>(p[n / 2]);
    w = (w << 8) | static_cast<unsigned char>(p[n - 1]);
    h = mix(h, w);
  }
  return static_cast<size_t>(finish(h));
}

/// A hash of a sequence of words (SequenceMap's keys: automaton states and op ids).
inline size_t hash_words(std::span<const uint32_t> key) {
  using namespace hash_detail;
  uint64_t h = mix(kMul, key.size());
  for (uint32_t w : key) h = mix(h, w);
  return static_cast<size_t>(finish(h));
}

}  // namespace graft
