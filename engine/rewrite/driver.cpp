// The rewrite driver (rewrite_graph, see rewriter.h): runs a rule set's phases, finds the
// matches of each iteration, selects non-overlapping ones greedily by benefit and graph order,
// hands each to MatchApplier and re-matches only the region the rewrites touched. One Driver
// runs all phases over one graph with one Matcher, so node states computed in one phase are
// reused by the next.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

#include "engine/ir/verifier.h"
#include "engine/match/match_conditions.h"
#include "engine/rewrite/apply_match.h"
#include "engine/rewrite/match_check.h"
#include "engine/rewrite/rewriter.h"
#include "engine/rewrite/rule_location.h"

namespace graft {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Which of a phase's rules to try: by whether their patterns join through users
/// (joins_users), or those whose patterns have several parts (BindPlan::parts), which the
/// others leave out.
enum class JoinFilter { kAll, kJoining, kNotJoining, kParts };

/// True if binding `rule` can reach a pattern node only through the users of a bound one: a
/// second root, or a node that no root reads through operands.
bool joins_users(const Rule& rule) {
  if (rule.roots.size() != 1) return true;
  std::vector<char> reached(rule.nodes.size(), 0);
  std::vector<uint32_t> work = {rule.roots[0]};
  reached[rule.roots[0]] = 1;
  while (!work.empty()) {
    uint32_t p = work.back();
    work.pop_back();
    for (const PatAlt& alt : rule.nodes[p].alts) {
      for (const PatValue& v : alt.operands) {
        if (v.kind == PatValue::Kind::kNode && !reached[v.index]) {
          reached[v.index] = 1;
          work.push_back(v.index);
        }
      }
    }
  }
  return std::find(reached.begin(), reached.end(), 0) != reached.end();
}

/// How many matches ahead apply_non_overlapping fetches the nodes of.
constexpr size_t kPrefetchAhead = 2;

/// Asks the hardware to fetch the nodes `m` binds into the cache. On a large graph they were
/// last read when the match was found, a whole pass of labelling earlier, and applying a
/// match waits on a cache miss at each node it reads; fetched a few matches ahead, those
/// misses overlap the work on the matches in between.
void prefetch_match(const Match& m) {
  auto fetch = [](const Node* n) {
    const char* p = reinterpret_cast<const char*>(n);
    for (size_t line = 0; line < sizeof(Node); line += 64) __builtin_prefetch(p + line);
  };
  for (const Node* n : m.nodes) fetch(n);
  for (const Input& v : m.vars) {
    if (v.is_node()) fetch(v.node);
  }
}

class Driver {
 public:
  Driver(Graph& graph, const CompiledRules& compiled, const RewriteOptions& options,
         DiagnosticEngine& diags)
      : graph_(graph),
        compiled_(compiled),
        rules_(compiled.rules()),
        options_(options),
        diags_(diags),
        matcher_(compiled, graph),
        applier_(graph, compiled.rules(), options.fold, diags),
        first_id_bound_(graph.id_bound()),
        created_limit_(options.max_created_nodes != 0 ? options.max_created_nodes
                                                      : default_created_nodes_limit(graph.size())) {
    result_.stats.resize(rules_.rules.size());
    matcher_.set_binding_budget(options.max_binding_steps);
    matcher_.set_cache_budget(options.matcher_cache_budget);
  }

  RewriteResult run();

 private:
  std::vector<char> enabled_in(const Phase& phase, JoinFilter filter = JoinFilter::kAll) const;
  bool run_phase(const Phase& phase);
  bool too_many_iterations(const Phase& phase, const std::vector<Match>& matches, int iteration,
                           int max);
  void find_matches_at(Node* node, const std::vector<char>& enabled, std::vector<Match>* found);
  void find_part_matches(const std::vector<char>& enabled, std::vector<Match>* found);
  void warn_gave_up(uint32_t r, const Node& node);
  void warn_out_of_combinations(uint32_t r);
  bool apply_non_overlapping(std::vector<Match> matches, int iteration,
                             std::vector<Node*>* touched, std::vector<Node*>* unapplied);
  bool rebind_or_overlaps(Match& m, const std::vector<bool>& claimed);
  bool within_growth_limit();

  /// Now, when rules are timed (RewriteOptions::time_rules); otherwise no clock is read.
  Clock::time_point timer_start() const {
    return options_.time_rules ? Clock::now() : Clock::time_point{};
  }
  /// Adds the time since `start` (from timer_start) to `s`, when rules are timed.
  void charge(RuleStats& s, Clock::time_point start) const {
    if (options_.time_rules) s.seconds += seconds_since(start);
  }

  Graph& graph_;
  const CompiledRules& compiled_;
  const RuleSet& rules_;
  const RewriteOptions& options_;
  DiagnosticEngine& diags_;
  Matcher matcher_;
  MatchApplier applier_;
  std::set<std::pair<uint32_t, std::string>> gave_up_;  // (rule, node) warned about
  std::set<uint32_t> out_of_combinations_;               // rules warned about
  RewriteResult result_;
  int phase_index_ = -1;
  std::vector<Node*> first_anchors_;  // from label_all, for the first phase
  std::vector<Match> first_matches_;  // found while labelling, for the first phase
  std::vector<char> joins_users_;     // by rule, see joins_users (set when there are phases)
  std::vector<char> has_parts_;       // by rule: its pattern has several parts
  // Nodes are never freed during a run (erased ones wait for Graph::compact()), so the ids
  // handed out since the start count every node the run created: the memory it holds.
  size_t first_id_bound_;
  size_t created_limit_;
};

RewriteResult Driver::run() {
  // The first phase's first matches are found while labelling, at each anchor right after it
  // is labelled: on a big graph a separate pass would fetch every anchor's pattern nodes from
  // memory a second time. Patterns that reach some of their nodes through users (multi-output
  // joins) need those users' states, so they wait for the whole graph's labels.
  if (rules_.phases.empty()) {
    first_anchors_ = matcher_.label_all();
  } else {
    for (uint32_t r = 0; r < rules_.rules.size(); ++r) {
      joins_users_.push_back(joins_users(rules_.rules[r]));
      has_parts_.push_back(compiled_.bind_plan(r).parts > 1);
    }
    std::vector<char> early = enabled_in(rules_.phases[0], JoinFilter::kNotJoining);
    first_anchors_ = matcher_.label_all(
        [&](Node* anchor) { find_matches_at(anchor, early, &first_matches_); });
  }
  result_.nodes_labelled += graph_.size();
  for (const Phase& phase : rules_.phases) {
    ++phase_index_;
    if (options_.before_phase) options_.before_phase(phase, graph_);
    if (!run_phase(phase)) {
      result_.ok = false;
      break;
    }
    if (options_.verify_each_phase && !verify_graph(graph_, diags_, "after phase " + phase.name)) {
      result_.ok = false;
      break;
    }
    if (options_.after_phase) options_.after_phase(phase, graph_);
  }
  std::erase_if(result_.created, [](const Node* n) { return n->is_dead(); });
  return std::move(result_);
}

/// By rule: 1 for the rules of `phase` that `filter` lets through.
std::vector<char> Driver::enabled_in(const Phase& phase, JoinFilter filter) const {
  std::vector<char> enabled(rules_.rules.size(), 0);
  for (uint32_t r : phase.rules) {
    if (has_parts_[r] || filter == JoinFilter::kParts) {
      enabled[r] = has_parts_[r] && filter == JoinFilter::kParts;
      continue;
    }
    enabled[r] = filter == JoinFilter::kAll ||
                 static_cast<bool>(joins_users_[r]) == (filter == JoinFilter::kJoining);
  }
  return enabled;
}

bool Driver::run_phase(const Phase& phase) {
  std::vector<char> enabled = enabled_in(phase);
  std::vector<char> with_parts = enabled_in(phase, JoinFilter::kParts);
  // The first phase starts from label_all's anchors; later ones walk the rewritten graph.
  std::vector<Node*> anchors;
  if (phase_index_ == 0) {
    anchors = std::move(first_anchors_);
  } else {
    for (Node* n : graph_.nodes()) {
      if (!matcher_.anchored_rules(n).empty()) anchors.push_back(n);
    }
  }
  int max = phase.mode == PhaseMode::kOnce ? 1 : std::max(1, phase.max_iterations);
  for (int iteration = 1;; ++iteration) {
    std::vector<Match> matches;
    if (phase_index_ == 0 && iteration == 1) {
      // Found while labelling (run()); the rules that join through users are still to do.
      matches = std::move(first_matches_);
      std::vector<char> joining = enabled_in(phase, JoinFilter::kJoining);
      for (Node* node : anchors) find_matches_at(node, joining, &matches);
    } else {
      for (Node* node : anchors) find_matches_at(node, enabled, &matches);
    }
    find_part_matches(with_parts, &matches);
    if (matches.empty()) return true;
    if (too_many_iterations(phase, matches, iteration, max)) return false;
    std::vector<Node*> touched;
    std::vector<Node*> unapplied;
    size_t applied_before = result_.applied.size();
    std::vector<Node*>().swap(anchors);  // the next pass's come from relabel(): free these now
    if (!apply_non_overlapping(std::move(matches), iteration, &touched, &unapplied)) return false;
    // Relabel even after a `once` phase: the next phase matches on these states.
    anchors = matcher_.relabel(touched);
    if (phase.mode == PhaseMode::kOnce) return true;
    // Nothing applied leaves the graph as it was: another pass would find the same matches
    // (patterns of several parts look at the whole graph every pass) and apply none.
    if (result_.applied.size() == applied_before) return true;
    result_.nodes_labelled += anchors.size();
    // relabel() returns its region without repeats; the overlapped matches' anchors, when
    // there are any, join it unless they are in it already. The order of the anchors does not
    // matter: apply_non_overlapping orders the matches.
    if (!unapplied.empty()) {
      std::vector<char> listed(graph_.id_bound(), 0);
      for (const Node* n : anchors) listed[n->id()] = 1;
      for (Node* n : unapplied) {
        if (n->is_dead() || listed[n->id()]) continue;
        listed[n->id()] = 1;
        anchors.push_back(n);
      }
    }
  }
}

/// True, after reporting, when iteration `iteration` of `phase` found `matches` past the
/// phase's `max` iterations.
bool Driver::too_many_iterations(const Phase& phase, const std::vector<Match>& matches,
                                 int iteration, int max) {
  if (iteration <= max) return false;
  // The rules still matching and those that fired in the last two iterations: in a ping-pong
  // both sides show up.
  std::set<std::string> firing;
  for (const Match& m : matches) firing.insert(rules_.rules[m.rule].name);
  for (const AppliedRewrite& a : result_.applied) {
    if (a.phase_iteration >= iteration - 2 && a.phase == phase_index_) firing.insert(a.rule);
  }
  std::string names;
  for (const std::string& n : firing) names += (names.empty() ? "" : ", ") + n;
  diags_.error({}, "phase '" + phase.name + "' did not reach a fixpoint in " +
                       std::to_string(max) + " iteration" + (max == 1 ? "" : "s") +
                       ": rules still matching: " + names +
                       " (do they undo each other? raise fixpoint(max=K) if not)");
  return true;
}

/// Appends the matches of the `enabled` rules anchored at `node` to `found`. The order of
/// `found` does not matter: apply_non_overlapping sorts it (one match per anchor and rule).
void Driver::find_matches_at(Node* node, const std::vector<char>& enabled,
                             std::vector<Match>* found) {
  if (node->is_dead()) return;
  Matcher::AnchorMatches at(matcher_, node);
  for (uint32_t r : matcher_.anchored_rules(node)) {
    if (!enabled[r]) continue;
    RuleStats& s = result_.stats[r];
    ++s.candidates;
    Clock::time_point start = timer_start();
    std::optional<Match> m = at.match(r);
    charge(s, start);
    if (matcher_.gave_up()) warn_gave_up(r, *node);
    if (!m) continue;
    ++s.matches;
    found->push_back(std::move(*m));
  }
}

/// Appends the matches of the `enabled` rules whose patterns have several parts. Every anchor
/// of the graph is tried, in graph order, each pass: a later part may start anywhere, not only
/// near what the last pass changed. Each anchor takes the first combination of parts, in graph
/// order, that shares no node with the rule's earlier matches of the pass and that the driver
/// would apply (torch.fx's order); a rule tries at most RewriteOptions::max_combinations
/// combinations per pass.
void Driver::find_part_matches(const std::vector<char>& enabled, std::vector<Match>* found) {
  if (std::find(enabled.begin(), enabled.end(), 1) == enabled.end()) return;
  struct PerRule {
    std::vector<char> taken;  // by node id: nodes of the rule's matches so far
    PartSearch search;
    bool stopped = false;
  };
  std::map<uint32_t, PerRule> per_rule;
  for (uint32_t r = 0; r < enabled.size(); ++r) {
    if (!enabled[r]) continue;
    PerRule& p = per_rule[r];
    p.taken.assign(graph_.id_bound(), 0);
    p.search.taken = &p.taken;
    p.search.declined = [this](const Match& m) { return why_declined(rules_.rules[m.rule], m); };
    if (options_.max_combinations != 0) p.search.combinations_left = options_.max_combinations;
  }
  for (Node* node : graph_.nodes()) {
    for (uint32_t r : matcher_.anchored_rules(node)) {
      if (!enabled[r]) continue;
      PerRule& p = per_rule[r];
      if (p.stopped || p.taken[node->id()]) continue;
      RuleStats& s = result_.stats[r];
      ++s.candidates;
      Clock::time_point start = timer_start();
      std::optional<Match> m = matcher_.match_at(r, node, nullptr, &p.search);
      charge(s, start);
      if (matcher_.gave_up()) warn_gave_up(r, *node);
      if (matcher_.ran_out_of_combinations()) {
        warn_out_of_combinations(r);
        p.stopped = true;
      }
      if (!m) continue;
      ++s.matches;
      for (const Node* n : m->nodes) p.taken[n->id()] = 1;
      found->push_back(std::move(*m));
    }
  }
}

/// Once per rule: it ran out of combinations of its pattern's parts in a pass.
void Driver::warn_out_of_combinations(uint32_t r) {
  const Rule& rule = rules_.rules[r];
  if (!out_of_combinations_.insert(r).second) return;
  uint64_t limit = options_.max_combinations != 0 ? options_.max_combinations
                                                  : PartSearch::kDefaultCombinations;
  diags_.warning(rule_location(rule),
                 "rule '" + rule.name + "' skipped for the rest of a pass after " +
                     std::to_string(limit) + " combinations of its pattern's " +
                     std::to_string(compiled_.bind_plan(r).parts) +
                     " parts, which share no input (a condition on one part rules out its node "
                     "for every combination at once; one across parts is checked per combination)");
}

/// Once per rule and node: the binder ran out of steps there (Matcher::gave_up), so the
/// rule was not tried to the end.
void Driver::warn_gave_up(uint32_t r, const Node& node) {
  const Rule& rule = rules_.rules[r];
  if (!gave_up_.emplace(r, node.name()).second) return;
  diags_.warning(rule_location(rule),
                 "rule '" + rule.name + "' skipped at node '" + node.name() +
                     "': no match found or ruled out within " +
                     std::to_string(matcher_.binding_budget()) + " binding steps (" + kGaveUpHint +
                     ")");
}

/// Greedy by benefit, then graph order of the anchor, then rule order.
bool Driver::apply_non_overlapping(std::vector<Match> matches, int iteration,
                                   std::vector<Node*>* touched, std::vector<Node*>* unapplied) {
  // Sorted as keys, each read once: a Match owns four vectors (moving them around is most of
  // a sort's time), and comparing anchors' positions is a cache miss per read on big graphs.
  struct Key {
    int benefit;
    uint64_t order;
    uint32_t rule;
    uint32_t index;  // ties (same anchor and rule) keep the order they were found in
    bool operator<(const Key& o) const {
      if (benefit != o.benefit) return benefit > o.benefit;
      return std::tie(order, rule, index) < std::tie(o.order, o.rule, o.index);
    }
  };
  std::vector<Key> keys;
  keys.reserve(matches.size());
  for (uint32_t i = 0; i < matches.size(); ++i) {
    const Rule& rule = rules_.rules[matches[i].rule];
    keys.push_back({rule.benefit, matches[i].anchor(rule)->order(), matches[i].rule, i});
  }
  std::sort(keys.begin(), keys.end());
  // Nodes of applied matches, by id (ids of nodes created meanwhile are past the end).
  std::vector<bool> claimed(graph_.id_bound(), false);  // bits: one per node of a big graph
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k + kPrefetchAhead < keys.size()) prefetch_match(matches[keys[k + kPrefetchAhead].index]);
    // Taken out of the list, so that its vectors are freed once it has had its turn: a match
    // owns four, and the nodes a large pass creates can then reuse that memory.
    Match m = std::move(matches[keys[k].index]);
    if (!within_growth_limit()) return false;
    const Rule& rule = rules_.rules[m.rule];
    Node* anchor = m.anchor(rule);
    if (rebind_or_overlaps(m, claimed)) {
      if (!anchor->is_dead()) unapplied->push_back(anchor);
      continue;
    }
    Clock::time_point start = timer_start();
    std::string anchor_name = anchor->name();
    if (!why_declined(rule, m).empty()) {
      charge(result_.stats[m.rule], start);
      continue;
    }
    std::vector<std::string> matched;  // for on_applied: the names before the replacement
    if (options_.on_applied) {
      for (const Node* n : m.nodes) matched.push_back(n->name());
    }
    ApplyOutcome outcome = applier_.apply(m, touched, &result_.created);
    charge(result_.stats[m.rule], start);
    if (outcome == ApplyOutcome::kRuleError) return false;  // reported
    if (outcome == ApplyOutcome::kDeclined) continue;
    for (const Node* n : m.nodes) {
      if (n->id() < claimed.size()) claimed[n->id()] = true;
    }
    ++result_.stats[m.rule].applied;
    result_.applied.push_back({rule.name, anchor_name, phase_index_, iteration});
    if (options_.on_applied) options_.on_applied(result_.applied.back(), matched);
  }
  return true;
}

/// True if `m` overlaps a match applied before it in this pass (one of its nodes is
/// `claimed` or gone). A variable only reads its value: when an earlier match replaced that
/// value (conv+relu feeding the next conv+relu), `m` reads the replacement instead — the same
/// value — and its conditions are checked again on it.
bool Driver::rebind_or_overlaps(Match& m, const std::vector<bool>& claimed) {
  auto is_claimed = [&](const Node* n) { return n->id() < claimed.size() && claimed[n->id()]; };
  if (std::any_of(m.nodes.begin(), m.nodes.end(),
                  [&](const Node* n) { return is_claimed(n) || n->is_dead(); })) {
    return true;
  }
  bool rebound = false;
  for (Input& v : m.vars) {
    if (!v.is_node() || !v.node->is_dead()) continue;
    Node* now = applier_.replacement_of(v.node);
    if (now == nullptr) return true;
    v.node = now;
    rebound = true;
  }
  const Rule& rule = rules_.rules[m.rule];
  return rebound &&
         !conditions_hold(graph_, rule, m.nodes, m.vars, m.attr_vars, nullptr, &m.symbols);
}

/// False, after reporting, once the rewrites have created more nodes than allowed. Checked
/// before every rewrite: one fixpoint iteration of a doubling rule creates as many nodes as
/// the graph has, so checking between iterations could overshoot the limit by the graph's
/// whole size.
bool Driver::within_growth_limit() {
  size_t created = graph_.id_bound() - first_id_bound_;
  if (created <= created_limit_) return true;
  // The rules that fired most in this phase are the likely culprits.
  std::map<std::string, uint64_t> fired;
  for (const AppliedRewrite& a : result_.applied) {
    if (a.phase == phase_index_) ++fired[a.rule];
  }
  std::vector<std::pair<uint64_t, std::string>> by_count;
  for (const auto& [rule, n] : fired) by_count.push_back({n, rule});
  std::sort(by_count.rbegin(), by_count.rend());
  std::string names;
  for (size_t i = 0; i < by_count.size() && i < 3; ++i) {
    names += (i == 0 ? "" : ", ") + by_count[i].second + " (" +
             std::to_string(by_count[i].first) + " rewrites)";
  }
  diags_.error({}, "phase '" + rules_.phases[phase_index_].name + "' stopped: " +
                       std::to_string(created) + " nodes were created in a graph of " +
                       std::to_string(first_id_bound_) + " (limit " +
                       std::to_string(created_limit_) + "); the rules that fired most: " + names +
                       " (does a replacement match its own pattern again?)");
  return false;
}

}  // namespace

RewriteResult rewrite_graph(Graph& graph, const CompiledRules& rules, const RewriteOptions& options,
                            DiagnosticEngine& diags) {
  return Driver(graph, rules, options, diags).run();
}

}  // namespace graft
