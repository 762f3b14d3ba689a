// Helpers shared by the property tests: the standard rule library and rule text lowered to a
// RuleSet, one rewrite run with the verifier after every phase, and a watchdog that turns a
// hang into a failed test instead of a stuck CI job.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/match/pattern.h"
#include "engine/rewrite/rewriter.h"

namespace graft::testing {

/// rules/std.rules with its imports, lowered once per process; fails the test if it does not
/// load.
const RuleSet& standard_rules();

/// `.rules` text lowered to a RuleSet, or nullopt with the rendered diagnostics in `errors`.
std::optional<RuleSet> lower_rules_text(const std::string& text, std::string* errors);

struct RewriteRun {
  RewriteResult result;
  std::string diagnostics;  // rendered
  double seconds = 0;
};

/// Rewrites `graph` with constant folding on the reference kernels and the verifier after
/// every phase (RewriteOptions::verify_each_phase), timing the run; `matcher_cache_budget` as
/// RewriteOptions has it.
RewriteRun rewrite_verifying_each_phase(Graph& graph, const CompiledRules& rules,
                                        size_t matcher_cache_budget = 0);

/// Ends the process with a message if it is still armed after `limit`: a driver that loops
/// forever then fails its test (and names the case) instead of hanging the test run. Catch2
/// cannot abandon a running test case, so exiting is the only way out of a true hang.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, std::string what);
  ~Watchdog();  // disarms
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable disarmed_;
  bool done_ = false;
  std::string what_;
  std::thread thread_;
};

/// How much slower this build runs than an optimised one: 10 with AddressSanitizer, 3 without
/// NDEBUG, else 1. Time limits are multiplied by it.
double time_scale();

}  // namespace graft::testing
