// Tier 2 of the matcher: binding a rule's pattern nodes to graph nodes at an anchor. A small
// backtracking search over pending (pattern node, graph node) pairs: commutative operands are
// tried in both orders, pattern nodes not reachable from the anchor (other roots of a
// multi-output pattern) are joined through the users of values already bound, and the result
// must pass the attribute checks and the `where` conditions.
#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/match_conditions.h"
#include "engine/matcher.h"

namespace graft {
namespace {

bool same_input(const Input& a, const Input& b) {
  if (a.kind != b.kind) return false;
  if (a.is_node()) return a.node == b.node;
  if (a.is_scalar()) return a.scalar == b.scalar;
  return true;
}

bool numbers_close(double a, double b, double tolerance) {
  return a == b || std::fabs(a - b) <= tolerance;
}

std::optional<double> attr_number(const AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

bool attr_matches(const AttrValue& value, const AttrValue& expected, double tolerance) {
  if (tolerance > 0) {
    auto a = attr_number(value), b = attr_number(expected);
    if (a && b) return numbers_close(*a, *b, tolerance);
  }
  return attr_equal(value, expected);
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
};

class Binder {
 public:
  Binder(const Rule& rule, const CompiledRules& compiled, uint32_t rule_index,
         const std::function<bool(const Node*, uint32_t)>& has_class)
      : rule_(rule), compiled_(compiled), rule_index_(rule_index), has_class_(has_class) {}

  std::optional<Binding> run(Node* anchor, std::string* why) {
    why_ = why;
    Binding b;
    b.nodes.assign(rule_.nodes.size(), nullptr);
    b.vars.assign(rule_.var_names.size(), Input::none());
    b.var_bound.assign(rule_.var_names.size(), 0);
    b.attr_vars.assign(rule_.attr_var_names.size(), AttrValue{});
    b.attr_bound.assign(rule_.attr_var_names.size(), 0);
    std::optional<Binding> result;
    solve(b, {{rule_.roots[0], anchor}}, &result);
    return result;
  }

 private:
  using Task = std::pair<uint32_t, Node*>;

  void fail(const std::string& reason) {
    if (why_ != nullptr && why_->empty()) *why_ = reason;
  }

  std::string where(uint32_t p) const {
    const PatNode& node = rule_.nodes[p];
    std::string label = node.name.empty() ? node.alts[0].schema->name : "'" + node.name + "'";
    return label + (node.loc.empty() ? "" : " (" + node.loc + ")");
  }

  /// Binds pending tasks; on full success checks conditions and stores the first binding.
  bool solve(Binding& b, std::vector<Task> tasks, std::optional<Binding>* result) {
    while (!tasks.empty()) {
      auto [p, n] = tasks.back();
      tasks.pop_back();
      if (b.nodes[p] != nullptr) {
        if (b.nodes[p] != n) {
          fail("pattern node " + where(p) + " would match two different nodes");
          return false;
        }
        continue;
      }
      return bind_node(b, p, n, tasks, result);
    }
    // Every task done: join the pattern nodes not reached yet (multi-output patterns).
    for (uint32_t q = 0; q < rule_.nodes.size(); ++q) {
      if (b.nodes[q] != nullptr) continue;
      Node* via = bound_operand_of(b, q);
      if (via == nullptr) continue;
      std::vector<Node*> users = via->users();
      std::sort(users.begin(), users.end(), Graph::is_before);
      users.erase(std::unique(users.begin(), users.end()), users.end());
      for (Node* u : users) {
        if (!has_class_(u, compiled_.class_of(rule_index_, q))) continue;
        Binding copy = b;
        if (solve(copy, {{q, u}}, result)) return true;
      }
      fail("no user of '" + via->name() + "' matches pattern node " + where(q));
      return false;
    }
    if (std::any_of(b.nodes.begin(), b.nodes.end(), [](Node* n) { return n == nullptr; })) {
      fail("the pattern is not connected to the anchor");
      return false;
    }
    std::string reason;
    if (!conditions_hold(rule_, b.nodes, b.vars, b.attr_vars, &reason)) {
      fail(reason);
      return false;
    }
    *result = b;
    return true;
  }

  /// A graph node bound to one of `q`'s operands (a variable's node or a bound pattern node).
  Node* bound_operand_of(const Binding& b, uint32_t q) const {
    for (const PatAlt& alt : rule_.nodes[q].alts) {
      for (const PatValue& v : alt.operands) {
        if (v.kind == PatValue::Kind::kVar && b.var_bound[v.index] && b.vars[v.index].is_node()) {
          return b.vars[v.index].node;
        }
        if (v.kind == PatValue::Kind::kNode && b.nodes[v.index] != nullptr) return b.nodes[v.index];
      }
    }
    return nullptr;
  }

  bool bind_node(Binding& b, uint32_t p, Node* n, const std::vector<Task>& tasks,
                 std::optional<Binding>* result) {
    if (!n->is(NodeKind::kCallFunction)) {
      fail("pattern node " + where(p) + " needs an op, got " + node_kind_name(n->kind()) + " '" +
           n->name() + "'");
      return false;
    }
    if (std::find(b.nodes.begin(), b.nodes.end(), n) != b.nodes.end()) {
      fail("'" + n->name() + "' is already matched by another pattern node than " + where(p));
      return false;
    }
    const PatNode& pat = rule_.nodes[p];
    bool any_alt = false;
    for (const PatAlt& alt : pat.alts) {
      if (alt.schema != n->schema()) continue;
      any_alt = true;
      int orders = pat.commutative && n->inputs().size() >= 2 ? 2 : 1;
      for (int order = 0; order < orders; ++order) {
        Binding copy = b;
        std::vector<Task> more = tasks;
        copy.nodes[p] = n;
        if (!bind_operands(copy, p, alt, *n, order == 1, &more)) continue;
        if (!check_attrs(copy, p, alt, *n)) continue;
        if (solve(copy, std::move(more), result)) return true;
      }
    }
    if (!any_alt) fail("'" + n->name() + "' is " + n->target() + ", pattern node " + where(p) + " is not");
    return false;
  }

  bool bind_operands(Binding& b, uint32_t p, const PatAlt& alt, const Node& n, bool swapped,
                     std::vector<Task>* tasks) {
    size_t count = alt.operands.size();
    if (alt.variadic_any ? n.inputs().size() < count : n.inputs().size() != count) {
      fail("'" + n.name() + "' has " + std::to_string(n.inputs().size()) + " operands, pattern node " +
           where(p) + " expects " + std::to_string(count));
      return false;
    }
    for (size_t i = 0; i < count; ++i) {
      const PatValue& v = alt.operands[i];
      const Input& in = n.input(swapped && i < 2 ? 1 - i : i);
      std::string operand = "operand " + std::to_string(i) + " of '" + n.name() + "'";
      switch (v.kind) {
        case PatValue::Kind::kAny:
          break;
        case PatValue::Kind::kVar: {
          if (in.is_scalar()) {
            fail(operand + " is a scalar; variable '" + rule_.var_names[v.index] + "' matches tensors");
            return false;
          }
          if (in.is_none() && !rule_.var_optional[v.index]) {
            fail(operand + " is None; variable '" + rule_.var_names[v.index] + "' is not optional (`" +
                 rule_.var_names[v.index] + "?`)");
            return false;
          }
          if (b.var_bound[v.index]) {
            if (!same_input(b.vars[v.index], in)) {
              fail("variable '" + rule_.var_names[v.index] + "' is bound to two different values");
              return false;
            }
          } else {
            b.var_bound[v.index] = 1;
            b.vars[v.index] = in;
          }
          break;
        }
        case PatValue::Kind::kNode:
          if (!in.is_node()) {
            fail(operand + " is not the result of an op (pattern node " + where(v.index) + ")");
            return false;
          }
          tasks->push_back({v.index, in.node});
          break;
        case PatValue::Kind::kNone:
          if (!in.is_none()) {
            fail(operand + " is present; the pattern expects none");
            return false;
          }
          break;
        case PatValue::Kind::kScalar:
          if (!in.is_scalar() || !numbers_close(in.scalar.value, v.scalar, v.tolerance)) {
            fail(operand + " is not the scalar " + std::to_string(v.scalar));
            return false;
          }
          break;
        case PatValue::Kind::kScalarVar: {
          if (!in.is_scalar()) {
            fail(operand + " is not a scalar ($" + rule_.attr_var_names[v.index] + ")");
            return false;
          }
          if (!bind_attr_var(b, v.index, scalar_attr(in.scalar))) return false;
          break;
        }
      }
    }
    return true;
  }

  bool bind_attr_var(Binding& b, uint32_t var, const AttrValue& value) {
    if (b.attr_bound[var]) {
      if (!attr_equal(b.attr_vars[var], value)) {
        fail("$" + rule_.attr_var_names[var] + " is bound to " + attr_to_string(b.attr_vars[var]) +
             " and to " + attr_to_string(value));
        return false;
      }
      return true;
    }
    b.attr_bound[var] = 1;
    b.attr_vars[var] = value;
    return true;
  }

  bool check_attrs(Binding& b, uint32_t p, const PatAlt& alt, const Node& n) {
    for (const AttrCheck& c : alt.attrs) {
      const AttrValue& value = n.attrs()[c.attr];
      const std::string& attr = alt.schema->attrs[c.attr].name;
      auto mismatch = [&](const std::string& expected) {
        fail("'" + n.name() + "' has " + attr + "=" + attr_to_string(value) + ", pattern node " +
             where(p) + " needs " + expected);
        return false;
      };
      switch (c.kind) {
        case AttrCheck::Kind::kEquals:
          if (!attr_matches(value, c.value, c.tolerance)) return mismatch(attr_to_string(c.value));
          break;
        case AttrCheck::Kind::kBind:
          if (!bind_attr_var(b, c.var, value)) return false;
          break;
        case AttrCheck::Kind::kIn: {
          bool found = std::any_of(c.values.begin(), c.values.end(),
                                   [&](const AttrValue& v) { return attr_equal(value, v); });
          if (!found) return mismatch("one of the listed values");
          break;
        }
        case AttrCheck::Kind::kRange: {
          auto x = attr_number(value);
          if (!x || *x < c.lo || *x > c.hi) {
            return mismatch("a value in " + std::to_string(c.lo) + ".." + std::to_string(c.hi));
          }
          break;
        }
      }
    }
    return true;
  }

  const Rule& rule_;
  const CompiledRules& compiled_;
  uint32_t rule_index_;
  const std::function<bool(const Node*, uint32_t)>& has_class_;
  std::string* why_ = nullptr;
};

}  // namespace

std::optional<Match> Matcher::match_at(uint32_t rule_index, Node* node, Explanation* why) {
  const Rule& rule = compiled_.rules().rules[rule_index];
  std::string reason;
  std::function<bool(const Node*, uint32_t)> has_class = [this](const Node* n, uint32_t klass) {
    uint32_t state = n->id() < node_state_.size() ? node_state_[n->id()] : 0;
    return state_has(state, klass);
  };
  if (rule.roots.empty() ||
      !has_class(node, compiled_.class_of(rule_index, rule.roots[0]))) {
    if (why != nullptr) {
      why->matched = false;
      why->reason = "'" + node->name() + "' (" + node->target() +
                    ") does not have the structure of the pattern's first result (" +
                    (rule.roots.empty() ? rule.loc : rule.nodes[rule.roots[0]].loc) + ")";
    }
    return std::nullopt;
  }
  std::optional<Binding> b =
      Binder(rule, compiled_, rule_index, has_class).run(node, why ? &reason : nullptr);
  if (why != nullptr) {
    why->matched = b.has_value();
    why->reason = b ? "matched" : reason;
  }
  if (!b) return std::nullopt;
  Match m;
  m.rule = rule_index;
  m.nodes = std::move(b->nodes);
  m.vars = std::move(b->vars);
  m.attr_vars = std::move(b->attr_vars);
  return m;
}

}  // namespace graft
