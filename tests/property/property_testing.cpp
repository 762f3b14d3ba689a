#include "tests/property/property_testing.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "eval/constant_folder.h"
#include "tests/dsl/rules_testing.h"
#include "tests/testing/test_paths.h"

namespace graft::testing {

const RuleSet& standard_rules() {
  static const RuleSet rules = [] {
    SourceManager sources;
    DiagnosticEngine diags(&sources);
    std::optional<dsl::RuleFileSet> set =
        dsl::load_rule_files({source_path("rules/std.rules")}, sources, diags);
    std::optional<RuleSet> lowered = set ? dsl::lower(*set, sources, diags) : std::nullopt;
    INFO(diags.render());
    REQUIRE(lowered);
    return std::move(*lowered);
  }();
  return rules;
}

std::optional<RuleSet> lower_rules_text(const std::string& text, std::string* errors) {
  LoadedRules loaded = load_rules(text);
  if (!loaded.set) {
    *errors = loaded.diagnostics;
    return std::nullopt;
  }
  DiagnosticEngine diags(loaded.sources.get());
  std::optional<RuleSet> rules = dsl::lower(*loaded.set, *loaded.sources, diags);
  if (!rules) *errors = diags.render();
  return rules;
}

RewriteRun rewrite_verifying_each_phase(Graph& graph, const CompiledRules& rules,
                                        size_t matcher_cache_budget) {
  RewriteOptions options;
  options.matcher_cache_budget = matcher_cache_budget;
  options.fold = eval::reference_constant_folder();
  options.verify_each_phase = true;
  DiagnosticEngine diags;
  RewriteRun run;
  auto start = std::chrono::steady_clock::now();
  run.result = rewrite_graph(graph, rules, options, diags);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.diagnostics = diags.render();
  return run;
}

Watchdog::Watchdog(std::chrono::seconds limit, std::string what) : what_(std::move(what)) {
  thread_ = std::thread([this, limit] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (disarmed_.wait_for(lock, limit, [this] { return done_; })) return;
    std::fprintf(stderr, "watchdog: %s did not finish within %lld s; stopping the test binary\n",
                 what_.c_str(), static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(EXIT_FAILURE);
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  disarmed_.notify_one();
  thread_.join();
}

double time_scale() {
#if defined(__SANITIZE_ADDRESS__)
  return 10;
#elif !defined(NDEBUG)
  return 3;
#else
  return 1;
#endif
}

}  // namespace graft::testing
