// The content hash names weights files: it must not depend on how the bytes were split into
// update() calls (the saver hashes while it streams), and it must stay the same across versions.
#include "engine/support/content_hash.h"

#include <catch2/catch.hpp>
#include <string>

using namespace graft;

namespace {

std::string sample(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(i * 7 + 3));
  return s;
}

}  // namespace

TEST_CASE("the content hash of bytes fed in pieces equals the hash of them in one piece",
          "[support][content_hash]") {
  std::string bytes = sample(100);
  uint64_t whole = content_hash(bytes);
  for (size_t first = 0; first <= bytes.size(); ++first) {
    for (size_t second = first; second <= bytes.size(); second += 13) {
      ContentHasher hasher;
      hasher.update(std::string_view(bytes).substr(0, first));
      hasher.update(std::string_view(bytes).substr(first, second - first));
      hasher.update(std::string_view(bytes).substr(second));
      INFO("split at " << first << " and " << second);
      REQUIRE(hasher.digest() == whole);
    }
  }
  ContentHasher bytewise;
  for (char c : bytes) bytewise.update(std::string_view(&c, 1));
  CHECK(bytewise.digest() == whole);
}

TEST_CASE("content hashes keep their values, so saved weights keep their names",
          "[support][content_hash]") {
  CHECK(hash_hex(content_hash("")) == "eb08a810d4f5675f");
  CHECK(hash_hex(content_hash("abc")) == "ce8b234d2b9e67a3");
  CHECK(hash_hex(content_hash(sample(100))) == "f7c821b544273d07");
  CHECK(content_hash(sample(64)) != content_hash(sample(65)));
}
