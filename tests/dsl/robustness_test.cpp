// Robustness: mangled rule files (bytes deleted, duplicated, swapped, replaced with syntax
// characters) never crash the loader, and a rejected file always comes with an error.
#include <catch2/catch.hpp>
#include <random>

#include "tests/dsl/rules_testing.h"
#include "tests/testing/test_paths.h"

TEST_CASE("mangled rule files are rejected with a diagnostic, never a crash", "[dsl][robustness]") {
  const std::string original =
      graft::testing::read_file(graft::testing::source_path("tests/dsl/data/fusion_sample.rules"));
  REQUIRE_FALSE(original.empty());
  static const char kSyntax[] = "(){}[],;=$_?~#\"/|.-+*<>!0123456789 \nabcxyz";
  std::mt19937 rng(20240603);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text = original;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % text.size();
      size_t len = 1 + rng() % 12;
      switch (rng() % 4) {
        case 0:
          text.erase(pos, len);
          break;
        case 1:
          text.insert(pos, text.substr(rng() % text.size(), len));
          break;
        case 2:
          text[pos] = kSyntax[rng() % (sizeof(kSyntax) - 1)];
          break;
        default:
          text.insert(pos, 1, kSyntax[rng() % (sizeof(kSyntax) - 1)]);
          break;
      }
    }
    graft::testing::LoadedRules loaded = graft::testing::load_rules(text);
    if (!loaded.set.has_value()) {
      INFO("trial " << trial << ":\n" << text);
      CHECK(loaded.diagnostics.find(": error: ") != std::string::npos);
    }
  }
}
