// Property: the compiled matcher finds exactly the matches a naive matcher finds. For each seed a
// random graph (random_graph.h) and a rule set — the standard library for every third seed,
// else a random one (random_rules.h) — are matched at every node by every rule three ways:
//   - as the driver does: the anchored rules of the node's state, bound with AnchorMatches
//     (tier 1's pruning, the binder's class filter, bindings shared by `where` variants);
//   - by the same binder without tier 1's pruning (match_at while explaining);
//   - by naive_matcher.h, which enumerates every binding without any of the machinery.
// A (rule, node) pair has a match in the first exactly when the naive matcher has a binding
// anchored there, the binding found is one of the naive ones, and the unpruned binder finds
// the same binding first. A matcher whose state cache is flushed at every chance (budget 1)
// labels, matches and rewrites exactly as one with the default budget.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "engine/io/graph_printer.h"
#include "engine/match/matcher.h"
#include "tests/property/naive_matcher.h"
#include "tests/property/property_testing.h"
#include "tests/property/random_graph.h"
#include "tests/property/random_rules.h"

using namespace graft;
using namespace graft::testing;

namespace {

constexpr uint64_t kSeeds = 500;
constexpr uint64_t kSlowSeeds = 5000;

RuleSet rules_of(uint64_t seed) {
  if (seed % 3 == 0) return standard_rules();
  std::string errors;
  std::optional<RuleSet> rules = lower_rules_text(random_rule_text(seed), &errors);
  INFO(errors);
  REQUIRE(rules);
  return std::move(*rules);
}

std::unique_ptr<Graph> graph_of(uint64_t seed) {
  std::string error;
  std::unique_ptr<Graph> graph = random_graph(seed, {}, &error);
  INFO(error);
  REQUIRE(graph);
  return graph;
}

std::string key_of(const Match& m) { return binding_key({m.nodes, m.vars, m.attr_vars}); }

struct Totals {
  uint64_t pairs = 0;    // (rule, node) pairs compared
  uint64_t matches = 0;  // of them with a match
  uint64_t gave_up = 0;  // skipped: the binder ran out of steps
  uint64_t flushes = 0;  // of the budget-1 matchers' caches
};

/// Rules whose patterns have several parts (outputs that share no input): each later part is
/// tried at every node of its class, which the naive matcher does for every leaf.
const char* const kPartRules = R"(
rule two { pattern(a, b) { return relu(a), sigmoid(b) } replacement { return relu(a), sigmoid(b) } }
rule same_op { pattern(a, b) { return tanh(a), (tanh | neg)(b) } replacement { return a, b } }
rule tied {
  pattern(a, b) { return (relu | silu)(a), add(b, _) }
  where shape(a) == shape(b)
  replacement { return a, b }
}
rule three {
  pattern(a, b, c) { y = sigmoid(a)
                     return mul(y, _), abs(b), gelu(c) }
  replacement { return a, b, c }
}
)";

/// Every (rule, node) of seed's case, compared three ways (see the top of the file); the first
/// disagreement, or "".
std::string cross_check(uint64_t seed, Totals& totals, const RuleSet* fixed_rules = nullptr) {
  RuleSet rules = fixed_rules != nullptr ? *fixed_rules : rules_of(seed);
  std::unique_ptr<Graph> graph = graph_of(seed);
  CompiledRules compiled(rules);
  Matcher matcher(compiled, *graph);
  matcher.label_all();
  Matcher flushed(compiled, *graph);
  flushed.set_cache_budget(1);
  flushed.label_all();
  totals.flushes += flushed.cache_flushes();

  std::map<std::pair<uint32_t, const Node*>, std::set<std::string>> naive;
  for (uint32_t r = 0; r < rules.rules.size(); ++r) {
    const Rule& rule = rules.rules[r];
    for (const NaiveBinding& b : naive_bindings(rule, *graph)) {
      naive[{r, b.nodes[rule.roots[0]]}].insert(binding_key(b));
    }
  }
  for (Node* node : graph->nodes()) {
    std::vector<uint32_t> anchored = matcher.anchored_rules(node);
    std::string at_node = " at node '" + node->name() + "'";
    if (flushed.anchored_rules(node) != anchored)
      return "the flushed matcher anchors other rules" + at_node;
    Matcher::AnchorMatches at(matcher, node);
    for (uint32_t r = 0; r < rules.rules.size(); ++r) {
      std::string where = "rule " + rules.rules[r].name + at_node + ": ";
      bool is_anchored = std::binary_search(anchored.begin(), anchored.end(), r);
      std::optional<Match> m = is_anchored ? at.match(r) : std::nullopt;
      if (is_anchored && matcher.gave_up()) {
        ++totals.gave_up;
        continue;
      }
      ++totals.pairs;
      totals.matches += m.has_value();
      auto it = naive.find({r, node});
      std::string found = m ? key_of(*m) : "no match";
      std::string expected = it == naive.end() ? "no match" : *it->second.begin();
      bool agree = m ? it != naive.end() && it->second.count(found) == 1 : found == expected;
      if (!agree) return where + "found " + found + ", the naive matcher " + expected;
      Explanation why;
      std::optional<Match> unpruned = matcher.match_at(r, node, &why);
      std::string first = unpruned ? key_of(*unpruned) : "no match";
      if (!matcher.gave_up() && first != found) {
        return where + "found " + found + ", without tier 1's pruning " + first;
      }
      if (!is_anchored) continue;
      std::optional<Match> small = flushed.match_at(r, node);
      std::string small_found = small ? key_of(*small) : "no match";
      if (!flushed.gave_up() && small_found != found) {
        return where + "found " + found + ", with a flushed cache " + small_found;
      }
    }
  }
  return "";
}

Totals cross_check_seeds(uint64_t first, uint64_t count) {
  Totals totals;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    std::string failure = cross_check(seed, totals);
    if (!failure.empty()) FAIL("seed " << seed << ": " << failure);
  }
  std::printf("%llu (rule, node) pairs, %llu matches, %llu gave up; %llu cache flushes\n",
              static_cast<unsigned long long>(totals.pairs),
              static_cast<unsigned long long>(totals.matches),
              static_cast<unsigned long long>(totals.gave_up),
              static_cast<unsigned long long>(totals.flushes));
  return totals;
}

}  // namespace

TEST_CASE("the compiled matcher finds a match exactly where a naive matcher does",
          "[property][matcher]") {
  Totals totals = cross_check_seeds(1, kSeeds);
  // The cases exercise what they should: matches, no matches, and cache flushes.
  CHECK(totals.matches > 100);
  CHECK(totals.pairs > 10 * totals.matches);
  CHECK(totals.gave_up == 0);
  CHECK(totals.flushes > kSeeds);
}

TEST_CASE("patterns of several parts match exactly where a naive matcher binds them",
          "[property][matcher]") {
  std::string errors;
  std::optional<RuleSet> rules = lower_rules_text(kPartRules, &errors);
  INFO(errors);
  REQUIRE(rules);
  Totals totals;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    std::string failure = cross_check(seed, totals, &*rules);
    if (!failure.empty()) FAIL("seed " << seed << ": " << failure);
  }
  std::printf("%llu (rule, node) pairs, %llu matches\n",
              static_cast<unsigned long long>(totals.pairs),
              static_cast<unsigned long long>(totals.matches));
  CHECK(totals.matches > 100);
  CHECK(totals.gave_up == 0);
}

TEST_CASE("the compiled matcher finds a match exactly where a naive matcher does (long sweep)",
          "[property][matcher][slow]") {
  Totals totals = cross_check_seeds(kSeeds + 1, kSlowSeeds);
  CHECK(totals.gave_up == 0);
}

TEST_CASE("a matcher that flushes its state cache at every chance rewrites as the default one",
          "[property][matcher]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    RuleSet rules = rules_of(seed);
    CompiledRules compiled(rules);
    std::unique_ptr<Graph> by_default = graph_of(seed);
    std::unique_ptr<Graph> flushed = graph_of(seed);
    RewriteRun a = rewrite_verifying_each_phase(*by_default, compiled);
    RewriteRun b = rewrite_verifying_each_phase(*flushed, compiled, /*matcher_cache_budget=*/1);
    CHECK(a.result.ok == b.result.ok);
    CHECK(a.diagnostics == b.diagnostics);
    CHECK(format_graph_table(*by_default) == format_graph_table(*flushed));
  }
}
