// The naive matcher: enumeration over pattern nodes in index order (see naive_matcher.h).
#include "tests/property/naive_matcher.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "engine/match/attr_check.h"
#include "engine/match/match_conditions.h"

namespace graft::testing {
namespace {

std::string input_key(const Input& in) {
  if (in.is_node()) return in.node->name();
  if (in.is_scalar()) return "scalar " + scalar_to_string(in.scalar);
  return "None";
}

bool same_input(const Input& a, const Input& b) { return input_key(a) == input_key(b); }

struct State {
  NaiveBinding b;
  std::vector<char> var_bound;
  std::vector<char> attr_bound;
};

class Enumerator {
 public:
  Enumerator(const Rule& rule, const Graph& graph, uint64_t limit)
      : rule_(rule), graph_(graph), limit_(limit) {}

  std::vector<NaiveBinding> run() {
    State s;
    s.b.nodes.assign(rule_.nodes.size(), nullptr);
    s.b.vars.assign(rule_.var_names.size(), Input::none());
    s.b.attr_vars.assign(rule_.attr_var_names.size(), AttrValue{});
    s.var_bound.assign(rule_.var_names.size(), 0);
    s.attr_bound.assign(rule_.attr_var_names.size(), 0);
    assign(0, s);
    return std::move(found_);
  }

 private:
  /// Assigns pattern nodes p, p+1, … in every way.
  void assign(uint32_t p, const State& s) {
    REQUIRE(++steps_ <= limit_);
    if (p == rule_.nodes.size()) {
      finish(s);
      return;
    }
    for (Node* n : candidates(p, s)) {
      if (!n->is(NodeKind::kCallFunction)) continue;
      if (std::find(s.b.nodes.begin(), s.b.nodes.end(), n) != s.b.nodes.end()) continue;
      const PatNode& pat = rule_.nodes[p];
      bool swaps = pat.commutative && n->inputs().size() >= 2 && n->schema()->commutes(n->attrs());
      for (const PatAlt& alt : pat.alts) {
        if (alt.schema != n->schema()) continue;
        for (int order = 0; order < (swaps ? 2 : 1); ++order) {
          State next = s;
          next.b.nodes[p] = n;
          if (operands_fit(alt, *n, order == 1, next) && attrs_fit(alt, *n, next)) {
            assign(p + 1, next);
          }
        }
      }
    }
  }

  /// The users of the first operand node of each alternative of p, which are bound already
  /// (operands come first), or every node of the graph when an alternative has no operand node.
  std::vector<Node*> candidates(uint32_t p, const State& s) const {
    std::vector<Node*> out;
    for (const PatAlt& alt : rule_.nodes[p].alts) {
      auto operand = std::find_if(alt.operands.begin(), alt.operands.end(), [](const PatValue& v) {
        return v.kind == PatValue::Kind::kNode;
      });
      if (operand == alt.operands.end()) {
        std::vector<Node*> all;
        for (Node* n : graph_.nodes()) all.push_back(n);
        return all;
      }
      std::span<Node* const> users = s.b.nodes[operand->index]->users();
      out.insert(out.end(), users.begin(), users.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  bool bind_attr(State& s, uint32_t var, const AttrValue& value) const {
    if (s.attr_bound[var]) return attr_equal(s.b.attr_vars[var], value);
    s.attr_bound[var] = 1;
    s.b.attr_vars[var] = value;
    return true;
  }

  bool operands_fit(const PatAlt& alt, const Node& n, bool swapped, State& s) const {
    size_t count = alt.operands.size();
    if (alt.variadic_any ? n.inputs().size() < count : n.inputs().size() != count) return false;
    for (size_t i = 0; i < count; ++i) {
      const PatValue& v = alt.operands[i];
      const Input& in = n.input(swapped && i < 2 ? 1 - i : i);
      switch (v.kind) {
        case PatValue::Kind::kAny:
          break;
        case PatValue::Kind::kVar:
          if (in.is_scalar() || (in.is_none() && !rule_.var_optional[v.index])) return false;
          if (s.var_bound[v.index]) {
            if (!same_input(s.b.vars[v.index], in)) return false;
          } else {
            s.var_bound[v.index] = 1;
            s.b.vars[v.index] = in;
          }
          break;
        case PatValue::Kind::kNode:
          if (!in.is_node() || in.node != s.b.nodes[v.index]) return false;
          break;
        case PatValue::Kind::kNone:
          if (!in.is_none()) return false;
          break;
        case PatValue::Kind::kScalar:
          if (!in.is_scalar()) return false;
          if (in.scalar.value != v.scalar && std::fabs(in.scalar.value - v.scalar) > v.tolerance)
            return false;
          break;
        case PatValue::Kind::kScalarVar: {
          if (!in.is_scalar()) return false;
          AttrValue value = in.scalar.is_int ? AttrValue{static_cast<int64_t>(in.scalar.value)}
                                             : AttrValue{in.scalar.value};
          if (!bind_attr(s, v.index, value)) return false;
          break;
        }
      }
    }
    return true;
  }

  bool attrs_fit(const PatAlt& alt, const Node& n, State& s) const {
    for (const AttrCheck& c : alt.attrs) {
      const AttrValue& value = n.attrs()[c.attr];
      if (c.kind == AttrCheck::Kind::kBind ? !bind_attr(s, c.var, value)
                                           : !attr_check_holds(c, value)) {
        return false;
      }
      // A list's `$` items bind one item each (`stride=[$s, $s]`: equal items).
      for (size_t i = 0; c.kind == AttrCheck::Kind::kList && i < c.elements.size(); ++i) {
        if (c.elements[i].kind == AttrCheck::Kind::kBind &&
            !bind_attr(s, c.elements[i].var, *attr_list_item(value, i))) {
          return false;
        }
      }
    }
    return true;
  }

  void finish(const State& s) {
    if (!conditions_hold(graph_, rule_, s.b.nodes, s.b.vars, s.b.attr_vars, nullptr)) return;
    if (seen_.insert(binding_key(s.b)).second) found_.push_back(s.b);
  }

  const Rule& rule_;
  const Graph& graph_;
  uint64_t limit_;
  uint64_t steps_ = 0;
  std::vector<NaiveBinding> found_;
  std::set<std::string> seen_;
};

}  // namespace

std::string binding_key(const NaiveBinding& b) {
  std::string key = "nodes";
  for (const Node* n : b.nodes) key += " " + n->name();
  key += "; vars";
  for (const Input& in : b.vars) key += " " + input_key(in);
  key += "; attrs";
  for (const AttrValue& a : b.attr_vars) key += " " + attr_to_string(a);
  return key;
}

std::vector<NaiveBinding> naive_bindings(const Rule& rule, const Graph& graph, uint64_t limit) {
  return Enumerator(rule, graph, limit).run();
}

}  // namespace graft::testing
