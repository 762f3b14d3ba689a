// Tier 1 of the matcher: hash-consed pattern classes and the lazily built tree automaton.
// Tier 2 (the residual binder and conditions) is in match_binder.cpp.
#include "engine/match/matcher.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "engine/match/attr_check.h"
#include "engine/support/check.h"

namespace graft {
namespace {

void append_u32(std::string& key, uint32_t v) { key.append(reinterpret_cast<const char*>(&v), 4); }

// What a cache entry costs besides its words (hash slot, vector and string headers), roughly.
constexpr size_t kEntryOverhead = 48;

}  // namespace

// ** CompiledRules **

CompiledRules::CompiledRules(const RuleSet& rules) : rules_(&rules) {
  intern_commute_predicates();
  node_class_.resize(rules.rules.size());
  std::vector<std::vector<int>> height(rules.rules.size());
  for (uint32_t r = 0; r < rules.rules.size(); ++r) {
    const Rule& rule = rules.rules[r];
    node_class_[r].resize(rule.nodes.size());
    height[r].assign(rule.nodes.size(), 1);
    for (uint32_t n = 0; n < rule.nodes.size(); ++n) {
      node_class_[r][n] = intern_node(r, n);
      for (const PatAlt& alt : rule.nodes[n].alts) {
        for (const PatValue& v : alt.operands) {
          if (v.kind == PatValue::Kind::kNode) {
            height[r][n] = std::max(height[r][n], height[r][v.index] + 1);
          }
        }
      }
      max_height_ = std::max(max_height_, height[r][n]);
    }
  }
  anchored_.resize(classes_.size());
  for (uint32_t r = 0; r < rules.rules.size(); ++r) {
    const Rule& rule = rules.rules[r];
    if (rule.roots.empty()) continue;
    anchored_[node_class_[r][rule.roots[0]]].push_back(r);
  }
  for (const Rule& rule : rules.rules) bind_plans_.push_back(make_bind_plan(rule));
  group_identical_bindings();
}

namespace {

/// Everything of `rule` the binder reads (Binder in match_binder.cpp), names and conditions
/// aside: two rules with the same key bind the same graph nodes to the same indices.
std::string binding_key(const Rule& rule) {
  std::string key;
  append_u32(key, static_cast<uint32_t>(rule.var_names.size()));
  for (bool optional : rule.var_optional) key += optional ? 'o' : 'r';
  append_u32(key, static_cast<uint32_t>(rule.attr_var_names.size()));
  append_u32(key, static_cast<uint32_t>(rule.roots.size()));
  for (uint32_t root : rule.roots) append_u32(key, root);
  append_u32(key, static_cast<uint32_t>(rule.nodes.size()));
  for (const PatNode& node : rule.nodes) {
    append_u32(key, static_cast<uint32_t>(node.alts.size()));
    for (const PatAlt& alt : node.alts) {
      append_u32(key, alt.schema->id);
      key += alt.variadic_any ? 'v' : 'f';
      append_u32(key, static_cast<uint32_t>(alt.operands.size()));
      for (const PatValue& v : alt.operands) {
        key += static_cast<char>(v.kind);
        append_u32(key, v.index);
        key.append(reinterpret_cast<const char*>(&v.scalar), sizeof v.scalar);
        key.append(reinterpret_cast<const char*>(&v.tolerance), sizeof v.tolerance);
      }
      append_u32(key, static_cast<uint32_t>(alt.attrs.size()));
      for (const AttrCheck& check : alt.attrs) {
        key += attr_check_key(check);
        if (check.kind == AttrCheck::Kind::kBind) append_u32(key, check.var);
        key += ';';
      }
    }
  }
  return key;
}

}  // namespace

void CompiledRules::group_identical_bindings() {
  const std::vector<Rule>& rules = rules_->rules;
  binding_leader_.resize(rules.size());
  shares_binding_.assign(rules.size(), 0);
  std::unordered_map<std::string, uint32_t> leaders;
  for (uint32_t r = 0; r < rules.size(); ++r) {
    binding_leader_[r] = r;
    // Bound one way (no choices, every pattern node reached from the first root), a failing
    // `where` clause leaves nothing to backtrack to.
    if (rules[r].roots.empty() || bind_plans_[r].has_choices) continue;
    auto [it, inserted] = leaders.emplace(binding_key(rules[r]), r);
    if (inserted) continue;
    binding_leader_[r] = it->second;
    shares_binding_[r] = shares_binding_[it->second] = 1;
  }
}

uint32_t CompiledRules::intern_node(uint32_t rule, uint32_t node) {
  const PatNode& p = rules_->rules[rule].nodes[node];
  std::vector<Item> items;
  std::vector<std::string> item_keys;
  for (const PatAlt& alt : p.alts) {
    Item item;
    item.op = alt.schema->id;
    item.required = intern_predicates(alt);
    item.commutative = p.commutative;
    item.variadic_any = alt.variadic_any;
    for (const PatValue& v : alt.operands) {
      item.children.push_back(v.kind == PatValue::Kind::kNode
                                  ? static_cast<int32_t>(node_class_[rule][v.index])
                                  : kAnyChild);
    }
    std::string key;
    append_u32(key, item.op);
    append_u32(key, item.commutative | (item.variadic_any << 1));
    append_u32(key, static_cast<uint32_t>(item.required));
    append_u32(key, static_cast<uint32_t>(item.required >> 32));
    for (int32_t c : item.children) append_u32(key, static_cast<uint32_t>(c));
    item_keys.push_back(key);
    items.push_back(std::move(item));
  }
  // A class is its set of items: sort so that `(relu | relu6)` and `(relu6 | relu)` are one.
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return item_keys[a] < item_keys[b]; });
  std::string class_key;
  std::vector<Item> sorted;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    if (k > 0 && item_keys[i] == item_keys[order[k - 1]]) continue;
    append_u32(class_key, static_cast<uint32_t>(item_keys[i].size()));
    class_key += item_keys[i];
    sorted.push_back(items[i]);
  }
  auto [it, inserted] = class_ids_.emplace(class_key, static_cast<uint32_t>(classes_.size()));
  if (!inserted) return it->second;
  uint32_t id = it->second;
  for (Item& item : sorted) item.klass = id;
  classes_.push_back(std::move(sorted));
  // by_op_ points into classes_: rebuild it from scratch after every new class (compile time
  // only, and classes_ reallocates).
  by_op_.clear();
  for (const auto& cls : classes_) {
    for (const Item& item : cls) {
      if (by_op_.size() <= item.op) by_op_.resize(item.op + 1);
      by_op_[item.op].push_back(&item);
    }
  }
  return id;
}

int CompiledRules::intern_predicate(OpId op, const AttrCheck& check) {
  if (predicates_.size() <= op) predicates_.resize(op + 1);
  std::string key = std::to_string(op) + "|" + attr_check_key(check);
  auto it = predicate_bits_.find(key);
  if (it == predicate_bits_.end()) {
    if (predicates_[op].size() >= kMaxPredicatesPerOp) return -1;
    it = predicate_bits_.emplace(key, static_cast<uint32_t>(predicates_[op].size())).first;
    predicates_[op].push_back(check);
  }
  return static_cast<int>(it->second);
}

uint64_t CompiledRules::intern_predicates(const PatAlt& alt) {
  uint64_t required = 0;
  for (const AttrCheck& check : alt.attrs) {
    if (check.kind == AttrCheck::Kind::kBind) continue;
    int bit = intern_predicate(alt.schema->id, check);
    if (bit >= 0) required |= uint64_t{1} << bit;
  }
  return required;
}

void CompiledRules::intern_commute_predicates() {
  for (const Rule& rule : rules_->rules) {
    for (const PatNode& node : rule.nodes) {
      if (!node.commutative) continue;
      for (const PatAlt& alt : node.alts) {
        const OpSchema& op = *alt.schema;
        if (op.commutes_if_attr < 0) continue;
        if (commute_bit_.size() <= op.id) commute_bit_.resize(op.id + 1, -1);
        if (commute_bit_[op.id] >= 0) continue;
        // Equality without tolerance: the test OpSchema::commutes makes for the binder.
        AttrCheck check;
        check.attr = static_cast<uint32_t>(op.commutes_if_attr);
        check.value = op.commutes_if_value;
        commute_bit_[op.id] = intern_predicate(op.id, check);
        GRAFT_DCHECK(commute_bit_[op.id] >= 0);  // the op's first predicate: it gets a bit
      }
    }
  }
}

uint64_t CompiledRules::predicate_mask(const Node& node) const {
  OpId op = node.schema()->id;
  if (op >= predicates_.size()) return 0;
  uint64_t mask = 0;
  const std::vector<AttrCheck>& checks = predicates_[op];
  for (size_t bit = 0; bit < checks.size(); ++bit) {
    if (attr_check_holds(checks[bit], node.attrs()[checks[bit].attr])) mask |= uint64_t{1} << bit;
  }
  return mask;
}

size_t CompiledRules::predicate_count(OpId op) const {
  return op < predicates_.size() ? predicates_[op].size() : 0;
}

size_t CompiledRules::predicate_count() const {
  size_t n = 0;
  for (const auto& p : predicates_) n += p.size();
  return n;
}

const std::vector<const CompiledRules::Item*>& CompiledRules::items_for_op(OpId op) const {
  static const std::vector<const Item*> kNone;
  return op < by_op_.size() ? by_op_[op] : kNone;
}

// ** Matcher: labelling **

Matcher::Matcher(const CompiledRules& compiled, const Graph& graph)
    : compiled_(compiled), graph_(graph) {
  intern_state({});  // state 0: no class matches (inputs, constants, scalars, None)
}

uint32_t Matcher::intern_state(std::vector<uint32_t> classes) {
  std::string key(reinterpret_cast<const char*>(classes.data()), classes.size() * 4);
  auto [it, inserted] = state_ids_.emplace(std::move(key), static_cast<uint32_t>(states_.size()));
  if (inserted) {
    std::vector<uint32_t> rules;
    for (uint32_t c : classes) {
      const auto& anchored = compiled_.rules_anchored_at(c);
      rules.insert(rules.end(), anchored.begin(), anchored.end());
    }
    std::sort(rules.begin(), rules.end());
    // The classes twice: in states_ and as state_ids_'s key.
    cache_bytes_ += (2 * classes.size() + rules.size()) * sizeof(uint32_t) + 2 * kEntryOverhead;
    states_.push_back(std::move(classes));
    state_rules_.push_back(std::move(rules));
  }
  return it->second;
}

bool Matcher::state_has(uint32_t state, uint32_t klass) const {
  const auto& s = states_[state];
  return std::binary_search(s.begin(), s.end(), klass);
}

uint32_t Matcher::state_of_input(const Input& in) const {
  if (!in.is_node() || in.node->id() >= node_state_.size()) return 0;
  return node_state_[in.node->id()];
}

bool Matcher::item_matches(const CompiledRules::Item& item, uint64_t mask,
                           const std::vector<uint32_t>& input_states, bool swapped) const {
  if ((mask & item.required) != item.required) return false;
  size_t n = item.children.size();
  if (item.variadic_any ? input_states.size() < n : input_states.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    int32_t child = item.children[i];
    if (child == CompiledRules::kAnyChild) continue;
    size_t from = swapped && i < 2 ? 1 - i : i;
    if (!state_has(input_states[from], static_cast<uint32_t>(child))) return false;
  }
  return true;
}

void Matcher::make_key(const Node* node, OpId op, uint64_t mask) {
  key_.clear();
  key_.push_back(op);
  key_.push_back(static_cast<uint32_t>(mask));
  key_.push_back(static_cast<uint32_t>(mask >> 32));
  key_.push_back(static_cast<uint32_t>(node->inputs().size()));
  for (const Input& in : node->inputs()) {
    // A scalar or None operand has state 0 like an input; tier 2 tells them apart.
    key_.push_back(state_of_input(in));
  }
}

uint32_t Matcher::compute_state(const Node* node) {
  if (!node->is(NodeKind::kCallFunction)) return 0;
  OpId op = node->schema()->id;
  uint64_t mask = predicate_mask(*node);
  make_key(node, op, mask);
  if (const uint32_t* hit = transitions_.find(key_)) return *hit;
  ++misses_;
  if (cache_bytes_ > flush_at_) {
    flush_cache();
    make_key(node, op, mask);  // the operands' states have new numbers
  }
  std::vector<uint32_t> input_states;
  for (const Input& in : node->inputs()) input_states.push_back(state_of_input(in));
  std::vector<uint32_t> classes;
  // An add with alpha=2 does not commute: that is one of its predicates, so in the key.
  bool commutes = compiled_.commutes(op, mask);
  for (const CompiledRules::Item* item : compiled_.items_for_op(op)) {
    if (item_matches(*item, mask, input_states, false) ||
        (item->commutative && commutes && input_states.size() >= 2 &&
         item_matches(*item, mask, input_states, true))) {
      classes.push_back(item->klass);
    }
  }
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  uint32_t state = intern_state(std::move(classes));
  transitions_.insert(key_, state);
  cache_bytes_ += key_.size() * sizeof(uint32_t) + kEntryOverhead;
  return state;
}

void Matcher::flush_cache() {
  ++flushes_;
  transitions_ = SequenceMap();
  std::vector<std::vector<uint32_t>> old_states = std::move(states_);
  states_.clear();
  state_rules_.clear();
  state_ids_.clear();
  cache_bytes_ = 0;
  intern_state({});  // state 0 stays the empty state
  // The states nodes hold, renumbered in the order the nodes come (dead nodes' ids too: a
  // stale entry is never read, but a valid number keeps that trivially true).
  constexpr uint32_t kDropped = UINT32_MAX;
  std::vector<uint32_t> renumbered(old_states.size(), kDropped);
  renumbered[0] = 0;
  for (uint32_t& state : node_state_) {
    if (renumbered[state] == kDropped) renumbered[state] = intern_state(std::move(old_states[state]));
    state = renumbered[state];
  }
  flush_at_ = std::max(cache_budget_, 2 * cache_bytes_);
}

uint64_t Matcher::predicate_mask(const Node& node) {
  OpId op = node.schema()->id;
  // Below this many predicates, evaluating them costs about what comparing the list would.
  constexpr size_t kMemoFrom = 4;
  if (compiled_.predicate_count(op) < kMemoFrom) return compiled_.predicate_mask(node);
  if (predicate_memo_.size() <= op) predicate_memo_.resize(op + 1);
  PredicateMemo& memo = predicate_memo_[op];
  if (memo.attrs == &node.attrs()) return memo.mask;
  memo.mask = compiled_.predicate_mask(node);
  memo.attrs = &node.attrs();
  return memo.mask;
}

std::vector<Node*> Matcher::label_all(const std::function<void(Node*)>& on_anchor) {
  ++labelling_;
  node_state_.assign(graph_.id_bound(), 0);
  std::vector<Node*> anchors;
  for (Node* node : graph_.nodes()) {
    uint32_t state = compute_state(node);
    node_state_[node->id()] = state;
    if (state_rules_[state].empty()) continue;
    anchors.push_back(node);
    if (on_anchor) on_anchor(node);
  }
  return anchors;
}

std::vector<Node*> Matcher::relabel(const std::vector<Node*>& nodes) {
  ++labelling_;
  if (node_state_.size() < graph_.id_bound()) node_state_.resize(graph_.id_bound(), 0);
  // The changed nodes and their users up to the tallest pattern's height, level by level.
  enum : char { kOutside = 0, kInRegion, kWaiting, kLabelled };
  std::vector<char> mark(graph_.id_bound(), kOutside);
  std::vector<Node*> region;
  for (Node* n : nodes) {
    if (n->is_dead() || mark[n->id()] != kOutside) continue;
    mark[n->id()] = kInRegion;
    region.push_back(n);
  }
  size_t level_begin = 0;
  for (int level = 0; level < compiled_.max_height() && level_begin < region.size(); ++level) {
    size_t level_end = region.size();
    for (size_t i = level_begin; i < level_end; ++i) {
      for (Node* u : region[i]->users()) {
        if (mark[u->id()] != kOutside) continue;
        mark[u->id()] = kInRegion;
        region.push_back(u);
      }
    }
    level_begin = level_end;
  }
  // A state is a function of the operands' states, so operands go first. Not by graph order:
  // sorting the region, or picking a large one out of the node list, was most of a relabel's
  // time, a cache miss per node. Instead each node waits, on a stack, for the operands of it
  // that are in the region and not labelled yet: reading an operand's mark costs nothing
  // extra, since labelling reads the operand's state anyway. Every node is labelled once,
  // whatever order `nodes` came in. Users more than max_height above a change keep their
  // states: no pattern reaches that far down.
  std::vector<Node*> stack;
  for (Node* start : region) {
    if (mark[start->id()] != kInRegion) continue;
    mark[start->id()] = kWaiting;
    stack.push_back(start);
    while (!stack.empty()) {
      Node* n = stack.back();
      if (mark[n->id()] == kLabelled) {  // on the stack twice (below)
        stack.pop_back();
        continue;
      }
      bool ready = true;
      for (const Input& in : n->inputs()) {
        if (!in.is_node()) continue;
        // An operand waiting already is lower on the stack (pushed for another user): it goes
        // on top again, so that it is labelled before n.
        char& m = mark[in.node->id()];
        if (m != kInRegion && m != kWaiting) continue;
        m = kWaiting;
        stack.push_back(in.node);
        ready = false;
      }
      if (!ready) continue;
      stack.pop_back();
      node_state_[n->id()] = compute_state(n);
      mark[n->id()] = kLabelled;
      ++relabelled_;
    }
  }
  return region;
}

const std::vector<uint32_t>& Matcher::anchored_rules(const Node* node) {
  uint32_t state = node->id() < node_state_.size() ? node_state_[node->id()] : 0;
  return state_rules_[state];
}

const std::vector<Node*>& Matcher::nodes_in_class(uint32_t klass) {
  if (class_nodes_labelling_ != labelling_) {
    class_nodes_.clear();
    class_nodes_labelling_ = labelling_;
  }
  auto [it, added] = class_nodes_.try_emplace(klass);
  if (added) {
    for (Node* n : graph_.nodes()) {
      uint32_t state = n->id() < node_state_.size() ? node_state_[n->id()] : 0;
      if (state != 0 && state_has(state, klass)) it->second.push_back(n);
    }
  }
  return it->second;
}

}  // namespace graft
