#include "engine/support/hash.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

using namespace graft;

TEST_CASE("string hashes depend on every byte and on the length only", "[support][hash]") {
  // The same bytes in another buffer hash alike.
  std::string a = "batch_norm_12345", b = a;
  CHECK(hash_string(a) == hash_string(b));
  CHECK(hash_string(std::string_view(a).substr(0, 5)) == hash_string("batch"));
  // Every length up to 40 (the word loop, its overlapping last word, the 4–7 and 1–3 byte
  // tails), every position changed: no two of these strings collide.
  std::set<size_t> seen;
  size_t strings = 0;
  for (size_t n = 0; n <= 40; ++n) {
    std::string s(n, 'a');
    seen.insert(hash_string(s));
    ++strings;
    for (size_t i = 0; i < n; ++i) {
      std::string t = s;
      t[i] = 'b';
      seen.insert(hash_string(t));
      ++strings;
    }
  }
  CHECK(seen.size() == strings);
}

TEST_CASE("hashes of similar names spread over a power-of-two table's low bits",
          "[support][hash]") {
  // The names a rewrite makes ("mul_1", "mul_2", …) and sequences of small words differ in a
  // few low bits; a table indexes by the hash's low bits, so those must be mixed.
  constexpr size_t kBuckets = 1024, kKeys = 64 * kBuckets;
  std::vector<size_t> names(kBuckets), words(kBuckets);
  for (uint32_t i = 0; i < kKeys; ++i) {
    ++names[hash_string("mul_" + std::to_string(i)) % kBuckets];
    std::vector<uint32_t> key = {i % 64, i / 64, 3};
    ++words[hash_words(key) % kBuckets];
  }
  // Uniform would be 64 a bucket; a poorly mixed hash leaves buckets empty and others piled up.
  CHECK(*std::max_element(names.begin(), names.end()) < 128);
  CHECK(*std::min_element(names.begin(), names.end()) > 16);
  CHECK(*std::max_element(words.begin(), words.end()) < 128);
  CHECK(*std::min_element(words.begin(), words.end()) > 16);
}
