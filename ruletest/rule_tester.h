// graft::testing::RuleTester: unit tests of rules from C++ (Catch2, GoogleTest, anything that
// takes a bool and prints a message), in the same terms as a .rules `test` block:
//
//   auto tester = graft::testing::RuleTester::from_file("examples/rules/fuse.rules");
//   auto result = tester.apply("remove_dropout",
//                              "graph(x: f32[2, 8]) { return relu(dropout(x, training=false)) }");
//   REQUIRE(result.ok());
//   CHECK(result.count("dropout") == 0);
//   CHECK(result.matches("graph { return relu(x) }"));
//   CHECK(result.equivalent());
//
// Graphs are written in the test-graph syntax (docs/rules.md §10) and checked by sema exactly
// like a test block, so errors come with file:line:col. docs/testing-rules.md has the details.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/graph.h"

namespace graft::testing {

/// Tolerances of a numerical check (numpy.allclose: |actual - expected| <= atol + rtol*|expected|).
struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
  int trials = 1;  // runs on fresh random inputs
};

/// The outcome of a check: converts to bool, and streams the explanation (expected vs actual,
/// the graph diff), so `CHECK(result.matches(...))` prints why it failed.
class CheckResult {
 public:
  CheckResult(bool ok, std::string message) : ok_(ok), message_(std::move(message)) {}
  explicit operator bool() const { return ok_; }
  const std::string& message() const { return message_; }
  friend std::ostream& operator<<(std::ostream& out, const CheckResult& r) {
    return out << (r.ok_ ? "ok" : "failed") << (r.message_.empty() ? "" : ":\n") << r.message_;
  }

 private:
  bool ok_;
  std::string message_;
};

class RuleTester;

/// A test graph before and after rules were applied to it.
class RuleResult {
 public:
  RuleResult(RuleResult&&) noexcept;
  RuleResult& operator=(RuleResult&&) noexcept;
  ~RuleResult();

  /// True when the rules loaded, the graph was built and the rewrite succeeded; otherwise
  /// diagnostics() says why and every check fails with that message.
  bool ok() const;
  const std::string& diagnostics() const;
  /// The rewritten graph and the graph as written. Only valid when ok().
  const Graph& graph() const;
  const Graph& original() const;
  /// "rule at node" for every rewrite, in order.
  const std::vector<std::string>& applied() const;

  /// Live nodes of op `op` in the rewritten graph (0 when not ok()).
  int count(std::string_view op) const;
  /// Whether the rewritten graph has exactly the structure of `expected`, written as
  /// `graph { … }` (or just `{ … }`) over the test graph's inputs; its random `param`s match any
  /// constant of their type, literal ones match by value. On failure: both graphs, marked.
  CheckResult matches(const std::string& expected) const;
  /// Whether the rewritten graph computes what the original does, on the runtime, on random
  /// inputs (seeded by the tester's seed).
  CheckResult equivalent(Tolerance tolerance = {}) const;
  /// The rewritten graph, one node per line (the format of `rewrite test`'s reports).
  std::string dump() const;

  struct Impl;

 private:
  friend class RuleTester;
  explicit RuleResult(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Rules to test: a file (with its imports) or rule text.
class RuleTester {
 public:
  /// Rules from a .rules file (its imports relative to it, as always).
  static RuleTester from_file(const std::string& path);
  /// Rules from text, as a file named `name` (for diagnostics).
  static RuleTester from_text(std::string text, std::string name = "rules.rules");

  /// The base seed of random params and inputs (default 0).
  RuleTester& seed(uint64_t seed) {
    seed_ = seed;
    return *this;
  }

  /// Builds `graph` (`graph(x: f32[…]) { … }`) and applies `rules`, a comma-separated list of
  /// rule and phase names as in a test's `apply` (consecutive rules run together to a
  /// fixpoint); "" runs every phase of the file, as a test without `apply` does.
  RuleResult apply(const std::string& rules, const std::string& graph) const;

 private:
  RuleTester() = default;
  std::string path_;  // the rules file (absolute), or "" for text
  std::string text_;  // the rules text
  std::string name_;  // its name for text
  uint64_t seed_ = 0;
};

}  // namespace graft::testing
