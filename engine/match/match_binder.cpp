// Tier 2 of the matcher: binding a rule's pattern nodes to graph nodes at an anchor. A small
// backtracking search over pending (pattern node, graph node) pairs: commutative operands are
// tried in both orders, pattern nodes not reachable from the anchor (other roots of a
// multi-output pattern) are joined through the users of values already bound, a part of the
// pattern that shares no input with the rest starts at each node of its class in turn, and the
// result must pass the attribute checks and the `where` conditions. A failure backjumps over
// the choices it does not depend on, and budgets of steps and combinations bound the rest
// (docs/matcher.md).
#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/match/attr_check.h"
#include "engine/match/bind_plan.h"
#include "engine/match/match_choices.h"
#include "engine/match/match_conditions.h"
#include "engine/match/matcher.h"

namespace graft {
namespace {

bool same_input(const Input& a, const Input& b) {
  if (a.kind != b.kind) return false;
  if (a.is_node()) return a.node == b.node;
  if (a.is_scalar()) return a.scalar == b.scalar;
  return true;
}

bool same_pattern_value(const PatValue& a, const PatValue& b) {
  return a.kind == b.kind && a.index == b.index && a.scalar == b.scalar &&
         a.tolerance == b.tolerance;
}

bool numbers_close(double a, double b, double tolerance) {
  return a == b || std::fabs(a - b) <= tolerance;
}

AttrValue scalar_attr(const Scalar& s) {
  if (s.is_int) return AttrValue{static_cast<int64_t>(s.value)};
  return AttrValue{s.value};
}

struct Binding {
  std::vector<Node*> nodes;
  std::vector<Input> vars;
  std::vector<char> var_bound;
  std::vector<AttrValue> attr_vars;
  std::vector<char> attr_bound;
  std::vector<Dim> symbols;  // set once the conditions hold
  /// Per slot (engine/match/bind_plan.h): the choices its binding depends on (Choices).
  std::vector<uint64_t> reasons;
};

class Binder {
 public:
  /// `with_conditions` false: bind the pattern (structure, attributes, literals) and leave the
  /// `where` clauses to the caller — only for rules that bind one way (binding_leader).
  /// `budget`: the most bind_node calls before giving up (exhausted()).
  /// `nodes_in_class` and `parts`: where a part that shares no input with the rest may start,
  /// and how the parts combine (PartSearch).
  Binder(const Graph& graph, const Rule& rule, const CompiledRules& compiled, uint32_t rule_index,
         const std::function<bool(const Node*, uint32_t)>& has_class, bool with_conditions,
         uint64_t budget, const std::function<const std::vector<Node*>&(uint32_t)>& nodes_in_class,
         PartSearch& parts)
      : graph_(graph),
        rule_(rule),
        compiled_(compiled),
        plan_(compiled.bind_plan(rule_index)),
        rule_index_(rule_index),
        has_class_(has_class),
        with_conditions_(with_conditions),
        budget_(budget),
        nodes_in_class_(nodes_in_class),
        parts_(parts) {}

  std::optional<Binding> run(Node* anchor, std::string* why) {
    why_ = why;
    // Most candidates fail: their binding's vectors are reused rather than allocated per
    // candidate. A success moves them out into the result.
    thread_local Binding b;
    b.nodes.assign(rule_.nodes.size(), nullptr);
    b.vars.assign(rule_.var_names.size(), Input::none());
    b.var_bound.assign(rule_.var_names.size(), 0);
    b.attr_vars.assign(rule_.attr_var_names.size(), AttrValue{});
    b.attr_bound.assign(rule_.attr_var_names.size(), 0);
    b.symbols.clear();
    // A choice point binds a pattern node (and a join comes before binding one): a path has
    // at most two per pattern node.
    size_t max_depth = 2 * rule_.nodes.size();
    size_t words = plan_.has_choices ? max_depth / 64 + 1 : 0;
    if (words == 0) {
      b.reasons.clear();
    } else {
      b.reasons.assign(plan_.slot_count * words, 0);
    }
    thread_local Choices choices;
    choices.reset(words, max_depth);
    choices_ = &choices;
    thread_local std::vector<Task> tasks;
    tasks.assign(1, {rule_.roots[0], anchor, Origin{}});
    std::optional<Binding> result;
    solve(b, tasks, &result);
    return result;
  }

  bool exhausted() const { return exhausted_; }
  bool out_of_combinations() const { return out_of_combinations_; }

 private:
  struct Task {
    uint32_t p;
    Node* n;
    Origin origin;  // what binding p to n depends on
  };

  /// Records why the match failed; the message is built only when someone asks (--explain):
  /// the binder fails far more often than it succeeds.
  template <typename MakeReason>
  void fail(MakeReason&& make_reason) {
    if (why_ != nullptr && why_->empty()) *why_ = make_reason();
  }

  std::string where(uint32_t p) const {
    const PatNode& node = rule_.nodes[p];
    std::string label = node.name.empty() ? node.alts[0].schema->name : "'" + node.name + "'";
    return label + (node.loc.empty() ? "" : " (" + node.loc + ")");
  }

  uint32_t var_slot(uint32_t v) const { return plan_.var_slots + v; }
  uint32_t attr_slot(uint32_t a) const { return plan_.attr_slots + a; }

  /// Binds pending tasks; on full success checks conditions and stores the first binding.
  /// `b` and `tasks` are spent, as in bind_node.
  bool solve(Binding& b, std::vector<Task>& tasks, std::optional<Binding>* result) {
    while (!tasks.empty()) {
      Task task = tasks.back();
      tasks.pop_back();
      // Not a structured binding: the lambda below captures `p`, which clang 14 (the fuzz
      // build's compiler) does not allow for structured bindings.
      uint32_t p = task.p;
      if (b.nodes[p] != nullptr) {
        if (b.nodes[p] != task.n) {
          fail([&] { return std::string("pattern node " + where(p) + " would match two different nodes"); });
          return choices_->conflict(b.reasons, task.origin, {p});
        }
        continue;
      }
      return bind_node(b, task, tasks, result);
    }
    return join_and_check(b, result);
  }

  /// Every task done: joins the pattern nodes not reached yet (multi-output patterns), then
  /// checks the conditions and stores the binding.
  bool join_and_check(Binding& b, std::optional<Binding>* result) {
    for (uint32_t q = 0; q < rule_.nodes.size(); ++q) {
      if (b.nodes[q] != nullptr) continue;
      auto [via, via_slot] = bound_operand_of(b, q);
      if (via == nullptr) continue;
      std::span<Node* const> via_users = via->users();
      std::vector<Node*> users(via_users.begin(), via_users.end());
      std::sort(users.begin(), users.end(), Graph::is_before);
      users.erase(std::unique(users.begin(), users.end()), users.end());
      Choices::Point point(*choices_, b.reasons, Origin{via_slot, kNoChoice});
      for (Node* u : users) {
        if (stopped()) return false;
        if (!has_class_(u, compiled_.class_of(rule_index_, q))) continue;
        Binding copy = b;
        std::vector<Task> join{{q, u, Origin{via_slot, point.index()}}};
        if (solve(copy, join, result)) return true;
        if (!point.worth_another()) return false;
      }
      // Named, not the structured binding: clang before 16 cannot capture one in a lambda.
      const Node* reached = via;
      fail([&] {
        return std::string("no user of '" + reached->name() + "' matches pattern node " + where(q));
      });
      point.exhausted();
      return false;
    }
    if (std::optional<uint32_t> start = next_part(b)) return bind_part(b, *start, result);
    std::string reason;  // only when explaining: building it costs more than the check
    if (with_conditions_) steps_ += rule_.conditions.size();  // each costs about a binding step
    if (with_conditions_ && !conditions_hold(graph_, rule_, b.nodes, b.vars, b.attr_vars,
                                             why_ != nullptr ? &reason : nullptr, &b.symbols)) {
      fail([&] { return reason; });
      return choices_->conflict(b.reasons, plan_.condition_slots);
    }
    if (plan_.parts > 1 && parts_.declined) {
      Match m{rule_index_, b.nodes, b.vars, b.attr_vars, b.symbols};
      std::string declined = parts_.declined(m);
      if (!declined.empty()) {
        fail([&] { return "the driver declines this combination of the pattern's parts: " + declined; });
        return choices_->conflict_all();  // it may read any binding
      }
    }
    *result = std::move(b);  // the caller's binding is spent once solve() returns
    return true;
  }

  /// Where the next part of the pattern starts once no pattern node is left to join: its first
  /// returned node not bound yet or, when every returned one is (a part reached only through a
  /// variable bound to None), the last node not bound (nothing bound reads it). nullopt when
  /// every pattern node is bound.
  std::optional<uint32_t> next_part(const Binding& b) const {
    for (uint32_t r : rule_.roots) {
      if (b.nodes[r] == nullptr) return r;
    }
    for (size_t q = rule_.nodes.size(); q-- > 0;) {
      if (b.nodes[q] == nullptr) return static_cast<uint32_t>(q);
    }
    return std::nullopt;
  }

  bool is_taken(const Node* n) const {
    return parts_.taken != nullptr && n->id() < parts_.taken->size() && (*parts_.taken)[n->id()];
  }

  /// Binds the part that starts at pattern node `q` and shares nothing with what is bound: at
  /// each node of q's class in graph order that no earlier match of the rule took, one
  /// combination of the budget each, until one completes the match.
  bool bind_part(Binding& b, uint32_t q, std::optional<Binding>* result) {
    uint32_t klass = compiled_.class_of(rule_index_, q);
    const std::vector<Node*>& candidates = nodes_in_class_(klass);
    size_t& first = parts_.first_free[klass];
    while (first < candidates.size() && is_taken(candidates[first])) ++first;
    Choices::Point point(*choices_, b.reasons, Origin{});
    for (size_t i = first; i < candidates.size(); ++i) {
      if (stopped()) return false;
      if (is_taken(candidates[i])) continue;
      if (parts_.combinations_left == 0) {
        out_of_combinations_ = true;
        return choices_->conflict_all();
      }
      --parts_.combinations_left;
      Binding copy = b;
      std::vector<Task> start{{q, candidates[i], Origin{kNoSlot, point.index()}}};
      if (solve(copy, start, result)) return true;
      if (!point.worth_another()) return false;
    }
    fail([&] {
      return "no node matches pattern node " + where(q) +
             ", which shares no input with the pattern's other part" +
             (plan_.parts > 2 ? "s" : "");
    });
    point.exhausted();
    return false;
  }

  /// The search stops once either budget is spent: every attempt fails from then on.
  bool stopped() const { return exhausted_ || out_of_combinations_; }

  /// A graph node bound to one of `q`'s operands (a variable's node or a bound pattern node),
  /// and that binding's slot.
  std::pair<Node*, uint32_t> bound_operand_of(const Binding& b, uint32_t q) const {
    for (const PatAlt& alt : rule_.nodes[q].alts) {
      for (const PatValue& v : alt.operands) {
        if (v.kind == PatValue::Kind::kVar && b.var_bound[v.index] && b.vars[v.index].is_node()) {
          return {b.vars[v.index].node, var_slot(v.index)};
        }
        if (v.kind == PatValue::Kind::kNode && b.nodes[v.index] != nullptr) {
          return {b.nodes[v.index], v.index};
        }
      }
    }
    return {nullptr, kNoSlot};
  }

  /// Whether binding `alt` to n in operand order `order` (1: the first two swapped) can
  /// succeed: n has alt's op, the order is new (swapping equal operands binds the same way),
  /// and each operand sub-pattern's class is in its graph operand's state (which holds every
  /// class that can match there).
  bool worth_trying(const PatAlt& alt, const Node& n, int order) const {
    if (alt.schema != n.schema()) return false;
    if (order == 1 &&
        (alt.operands.size() < 2 || same_pattern_value(alt.operands[0], alt.operands[1]) ||
         same_input(n.input(0), n.input(1)))) {
      return false;
    }
    for (size_t i = 0; i < alt.operands.size() && i < n.inputs().size(); ++i) {
      const PatValue& v = alt.operands[i];
      const Input& in = n.input(order == 1 && i < 2 ? 1 - i : i);
      if (v.kind == PatValue::Kind::kNode && in.is_node() &&
          !has_class_(in.node, compiled_.class_of(rule_index_, v.index))) {
        return false;
      }
    }
    return true;
  }

  /// Binds the task's pattern node to its graph node, then the rest. `b` and `tasks` are
  /// spent: the caller keeps a copy if it wants to try something else after a failure.
  bool bind_node(Binding& b, const Task& task, std::vector<Task>& tasks,
                 std::optional<Binding>* result) {
    uint32_t p = task.p;
    Node* n = task.n;
    if (++steps_ > budget_) {
      exhausted_ = true;
      return choices_->conflict_all();
    }
    if (!n->is(NodeKind::kCallFunction)) {
      fail([&] { return std::string("pattern node " + where(p) + " needs an op, got " + node_kind_name(n->kind()) + " '" +
           n->name() + "'"); });
      return choices_->conflict(b.reasons, task.origin);
    }
    auto other = std::find(b.nodes.begin(), b.nodes.end(), n);
    if (other != b.nodes.end()) {
      fail([&] { return std::string("'" + n->name() + "' is already matched by another pattern node than " + where(p)); });
      return choices_->conflict(b.reasons, task.origin, {static_cast<uint32_t>(other - b.nodes.begin())});
    }
    if (is_taken(n)) {
      fail([&] { return "'" + n->name() + "' belongs to an earlier match of the rule in this pass"; });
      return choices_->conflict(b.reasons, task.origin);
    }
    const PatNode& pat = rule_.nodes[p];
    // The attempts: each alternative with n's op, in one or two operand orders (a commutative
    // pattern node, on a node whose attributes let it commute: not an add with alpha=2). All
    // but the last work on a copy of the binding; the last one, usually the only one, binds in
    // place — a failure unwinds to the caller, which holds its own copy if it retries.
    bool swaps = pat.commutative && n->inputs().size() >= 2 && n->schema()->commutes(n->attrs());
    int orders = swaps ? 2 : 1;
    int attempts = 0;
    for (const PatAlt& alt : pat.alts) attempts += alt.schema == n->schema() ? orders : 0;
    if (attempts == 0) {
      fail([&] { return std::string("'" + n->name() + "' is " + n->target() + ", pattern node " + where(p) + " is not"); });
      return choices_->conflict(b.reasons, task.origin);
    }
    b.nodes[p] = n;
    choices_->set_reason(b.reasons, p, task.origin);
    if (attempts == 1) {
      for (const PatAlt& alt : pat.alts) {
        if (alt.schema != n->schema()) continue;
        return attempt(b, p, alt, false, Origin{p, kNoChoice}, tasks, result);
      }
    }
    // A choice: only the attempts that can succeed, so that the last of them binds in place.
    attempts = 0;
    for (const PatAlt& alt : pat.alts) {
      for (int order = 0; order < orders; ++order) attempts += worth_trying(alt, *n, order);
    }
    Choices::Point point(*choices_, b.reasons, task.origin);
    for (const PatAlt& alt : pat.alts) {
      for (int order = 0; order < orders && attempts > 0; ++order) {
        if (!worth_trying(alt, *n, order)) continue;
        if (stopped()) return false;
        Origin here{p, point.index()};
        if (--attempts == 0) {
          if (attempt(b, p, alt, order == 1, here, tasks, result)) return true;
        } else {
          Binding copy = b;
          std::vector<Task> more = tasks;
          if (attempt(copy, p, alt, order == 1, here, more, result)) return true;
        }
        if (!point.worth_another()) return false;
      }
    }
    point.exhausted();
    return false;
  }

  /// One attempt of bind_node: p's operands in one order with one alternative, p's
  /// attributes, then the rest. `here`: what the attempt's bindings depend on.
  bool attempt(Binding& b, uint32_t p, const PatAlt& alt, bool swapped, Origin here,
               std::vector<Task>& tasks, std::optional<Binding>* result) {
    const Node& n = *b.nodes[p];
    return bind_operands(b, p, alt, n, swapped, here, &tasks) && check_attrs(b, p, alt, n, here) &&
           solve(b, tasks, result);
  }

  bool bind_operands(Binding& b, uint32_t p, const PatAlt& alt, const Node& n, bool swapped,
                     Origin here, std::vector<Task>* tasks) {
    size_t count = alt.operands.size();
    if (alt.variadic_any ? n.inputs().size() < count : n.inputs().size() != count) {
      fail([&] { return std::string("'" + n.name() + "' has " + std::to_string(n.inputs().size()) + " operands, pattern node " +
           where(p) + " expects " + std::to_string(count)); });
      return choices_->conflict(b.reasons, here);
    }
    for (size_t i = 0; i < count; ++i) {
      const PatValue& v = alt.operands[i];
      const Input& in = n.input(swapped && i < 2 ? 1 - i : i);
      auto operand = [&] { return "operand " + std::to_string(i) + " of '" + n.name() + "'"; };
      switch (v.kind) {
        case PatValue::Kind::kAny:
          break;
        case PatValue::Kind::kVar: {
          if (in.is_scalar()) {
            fail([&] { return std::string(operand() + " is a scalar; variable '" + rule_.var_names[v.index] + "' matches tensors"); });
            return choices_->conflict(b.reasons, here);
          }
          if (in.is_none() && !rule_.var_optional[v.index]) {
            fail([&] { return std::string(operand() + " is None; variable '" + rule_.var_names[v.index] + "' is not optional (`" +
                 rule_.var_names[v.index] + "?`)"); });
            return choices_->conflict(b.reasons, here);
          }
          if (b.var_bound[v.index]) {
            if (!same_input(b.vars[v.index], in)) {
              fail([&] { return std::string("variable '" + rule_.var_names[v.index] + "' is bound to two different values"); });
              return choices_->conflict(b.reasons, here, {var_slot(v.index)});
            }
          } else {
            b.var_bound[v.index] = 1;
            b.vars[v.index] = in;
            choices_->set_reason(b.reasons, var_slot(v.index), here);
          }
          break;
        }
        case PatValue::Kind::kNode:
          if (!in.is_node()) {
            fail([&] { return std::string(operand() + " is not the result of an op (pattern node " + where(v.index) + ")"); });
            return choices_->conflict(b.reasons, here);
          }
          tasks->push_back({v.index, in.node, here});
          break;
        case PatValue::Kind::kNone:
          if (!in.is_none()) {
            fail([&] { return std::string(operand() + " is present; the pattern expects none"); });
            return choices_->conflict(b.reasons, here);
          }
          break;
        case PatValue::Kind::kScalar:
          if (!in.is_scalar() || !numbers_close(in.scalar.value, v.scalar, v.tolerance)) {
            fail([&] { return std::string(operand() + " is not the scalar " + std::to_string(v.scalar)); });
            return choices_->conflict(b.reasons, here);
          }
          break;
        case PatValue::Kind::kScalarVar: {
          if (!in.is_scalar()) {
            fail([&] { return std::string(operand() + " is not a scalar ($" + rule_.attr_var_names[v.index] + ")"); });
            return choices_->conflict(b.reasons, here);
          }
          if (!bind_attr_var(b, v.index, scalar_attr(in.scalar), here)) return false;
          break;
        }
      }
    }
    return true;
  }

  bool bind_attr_var(Binding& b, uint32_t var, const AttrValue& value, Origin here) {
    if (b.attr_bound[var]) {
      if (!attr_equal(b.attr_vars[var], value)) {
        fail([&] { return std::string("$" + rule_.attr_var_names[var] + " is bound to " + attr_to_string(b.attr_vars[var]) +
             " and to " + attr_to_string(value)); });
        return choices_->conflict(b.reasons, here, {attr_slot(var)});
      }
      return true;
    }
    b.attr_bound[var] = 1;
    b.attr_vars[var] = value;
    choices_->set_reason(b.reasons, attr_slot(var), here);
    return true;
  }

  bool check_attrs(Binding& b, uint32_t p, const PatAlt& alt, const Node& n, Origin here) {
    for (const AttrCheck& c : alt.attrs) {
      const AttrValue& value = n.attrs()[c.attr];
      const std::string& attr = alt.schema->attrs[c.attr].name;
      auto mismatch = [&](auto expected) {
        fail([&] {
          return "'" + n.name() + "' has " + attr + "=" + attr_to_string(value) + ", pattern node " +
                 where(p) + " needs " + expected();
        });
        return choices_->conflict(b.reasons, here);
      };
      if (c.kind == AttrCheck::Kind::kBind) {
        if (!bind_attr_var(b, c.var, value, here)) return false;
        continue;
      }
      if (attr_check_holds(c, value)) {
        // A list's literal items matched; its `$` items bind (the same variable twice: equal).
        for (size_t i = 0; c.kind == AttrCheck::Kind::kList && i < c.elements.size(); ++i) {
          if (c.elements[i].kind != AttrCheck::Kind::kBind) continue;
          if (!bind_attr_var(b, c.elements[i].var, *attr_list_item(value, i), here)) return false;
        }
        continue;
      }
      switch (c.kind) {
        case AttrCheck::Kind::kEquals: return mismatch([&] { return attr_to_string(c.value); });
        case AttrCheck::Kind::kIn: return mismatch([] { return std::string("one of the listed values"); });
        case AttrCheck::Kind::kList:
          return mismatch([&] {
            std::string text = attr_check_text(*alt.schema, c, &rule_.attr_var_names);
            return text.substr(text.find('=') + 1);
          });
        default:
          return mismatch([&] { return "a value in " + std::to_string(c.lo) + ".." + std::to_string(c.hi); });
      }
    }
    return true;
  }

  const Graph& graph_;
  const Rule& rule_;
  const CompiledRules& compiled_;
  const BindPlan& plan_;
  uint32_t rule_index_;
  const std::function<bool(const Node*, uint32_t)>& has_class_;
  bool with_conditions_;
  std::string* why_ = nullptr;
  Choices* choices_ = nullptr;
  uint64_t budget_;
  const std::function<const std::vector<Node*>&(uint32_t)>& nodes_in_class_;
  PartSearch& parts_;
  uint64_t steps_ = 0;      // bind_node calls so far
  bool exhausted_ = false;  // steps_ passed budget_
  bool out_of_combinations_ = false;  // parts_.combinations_left ran out
};

}  // namespace

std::optional<Match> Matcher::match_at(uint32_t rule_index, Node* node, Explanation* why,
                                       PartSearch* parts) {
  return bind(rule_index, node, /*with_conditions=*/true, why, parts);
}

std::optional<Match> Matcher::bind(uint32_t rule_index, Node* node, bool with_conditions,
                                   Explanation* why, PartSearch* parts) {
  const Rule& rule = compiled_.rules().rules[rule_index];
  gave_up_ = false;
  out_of_combinations_ = false;
  std::string reason;
  // Tier 1's labels prune the search. When explaining, the binder re-checks everything itself
  // and names the first failing check, which the labels (a bit set) cannot.
  std::function<bool(const Node*, uint32_t)> has_class = [this, why](const Node* n, uint32_t klass) {
    if (why != nullptr) return true;
    uint32_t state = n->id() < node_state_.size() ? node_state_[n->id()] : 0;
    return state_has(state, klass);
  };
  if (rule.roots.empty()) {
    if (why != nullptr) *why = {false, "the rule has no pattern result (" + rule.loc + ")"};
    return std::nullopt;
  }
  if (!has_class(node, compiled_.class_of(rule_index, rule.roots[0]))) return std::nullopt;
  std::function<const std::vector<Node*>&(uint32_t)> in_class = [this](uint32_t klass)
      -> const std::vector<Node*>& { return nodes_in_class(klass); };
  PartSearch fresh;
  PartSearch& search = parts != nullptr ? *parts : fresh;
  uint64_t combinations = search.combinations_left;
  Binder binder(graph_, rule, compiled_, rule_index, has_class, with_conditions, binding_budget_,
                in_class, search);
  std::optional<Binding> b = binder.run(node, why ? &reason : nullptr);
  gave_up_ = binder.exhausted();
  out_of_combinations_ = binder.out_of_combinations();
  if (why != nullptr) {
    why->matched = b.has_value();
    why->reason = b         ? "matched"
                  : gave_up_ ? "gave up after " + std::to_string(binding_budget_) +
                                   " binding steps (" + kGaveUpHint + ")"
                  : out_of_combinations_
                      ? "gave up after " + std::to_string(combinations) +
                            " combinations of the pattern's parts"
                      : reason;
  }
  if (!b) return std::nullopt;
  Match m;
  m.rule = rule_index;
  m.nodes = std::move(b->nodes);
  m.vars = std::move(b->vars);
  m.attr_vars = std::move(b->attr_vars);
  m.symbols = std::move(b->symbols);
  return m;
}

std::optional<Match> Matcher::AnchorMatches::match(uint32_t rule) {
  const CompiledRules& compiled = matcher_.compiled_;
  if (!compiled.shares_binding(rule)) return matcher_.match_at(rule, anchor_);
  uint32_t leader = compiled.binding_leader(rule);
  auto it = std::find_if(bound_.begin(), bound_.end(),
                         [&](const Bound& b) { return b.leader == leader; });
  if (it == bound_.end()) {
    std::optional<Match> binding =
        matcher_.bind(leader, anchor_, /*with_conditions=*/false, nullptr, nullptr);
    bound_.push_back({leader, std::move(binding), matcher_.gave_up_});
    it = bound_.end() - 1;
  }
  matcher_.gave_up_ = it->gave_up;
  if (!it->binding) return std::nullopt;
  const Rule& r = compiled.rules().rules[rule];
  std::vector<Dim> symbols;
  if (!conditions_hold(matcher_.graph_, r, it->binding->nodes, it->binding->vars,
                       it->binding->attr_vars, nullptr, &symbols)) {
    return std::nullopt;
  }
  Match m = *it->binding;
  m.rule = rule;
  m.symbols = std::move(symbols);
  return m;
}

}  // namespace graft
