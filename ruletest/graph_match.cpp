// Graph matching by a canonical walk. Node names carry no meaning in a rewritten graph (a
// folded weight is called `y.weight`, a created op `conv2d_1`), so the graphs are compared by
// structure: the i-th output of one is paired with the i-th output of the other, and each pair
// pairs its operands position by position, breadth first. Pairing is a bijection: a node
// already paired with another partner means the two graphs share values differently (a
// diamond in one, two copies in the other). Graph inputs are the only names that count; they
// are paired by name before the walk starts.
//
// After the walk, any live node of either graph left unpaired is an extra node (dead code the
// rewrite left behind, or a node the expected graph has and the actual one lacks). The walk
// keeps going after a difference, pairing operands where the two nodes have as many, so the
// diff marks the nodes that differ rather than everything above them.
#include "ruletest/graph_match.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "engine/io/graph_printer.h"
#include "engine/support/terminal_text.h"

namespace graft::ruletest {
namespace {

std::string describe(const Node& n) {
  switch (n.kind()) {
    case NodeKind::kPlaceholder:
      return "input '" + n.name() + "'";
    case NodeKind::kGetAttr:
      return "constant '" + n.name() + "' " + (n.type() ? type_to_string(*n.type()) : "");
    case NodeKind::kOutput:
      return "the output";
    case NodeKind::kCallFunction:
      break;
  }
  return "'" + n.name() + " = " + format_node_call(n) + "'";
}

/// `'conv2d'`, or `'y' (conv2d)` when the node's name is not its op's.
std::string node_ref(const Node& n) {
  if (n.name() == n.target() || !n.is(NodeKind::kCallFunction)) return "'" + n.name() + "'";
  return "'" + n.name() + "' (" + n.target() + ")";
}

std::string describe(const Input& in) {
  if (in.is_node()) return describe(*in.node);
  if (in.is_scalar()) return "the number " + scalar_to_string(in.scalar);
  return "None";
}

double element(const ConstantTensor& t, int64_t i) {
  auto get = [&](auto v) {
    std::memcpy(&v, t.data + i * sizeof v, sizeof v);
    return static_cast<double>(v);
  };
  switch (t.dtype()) {
    case DType::kFloat32:
      return get(float{});
    case DType::kFloat64:
      return get(double{});
    case DType::kInt64:
      return get(int64_t{});
    case DType::kInt32:
      return get(int32_t{});
    case DType::kInt16:
      return get(int16_t{});
    case DType::kInt8:
      return get(int8_t{});
    case DType::kUInt8:
    case DType::kBool:
      return get(uint8_t{});
    case DType::kFloat16:
    case DType::kBFloat16:
      return get(uint16_t{});  // compared exactly
  }
  return 0;
}

class Walker {
 public:
  Walker(const Graph& actual, const Graph& expected, const GraphMatchOptions& options)
      : actual_(actual), expected_(expected), options_(options) {}

  GraphMatch run() {
    for (Node* e : expected_.placeholders()) {
      if (Node* a = actual_.find(e->name()); a != nullptr && a->is(NodeKind::kPlaceholder)) {
        a2e_[a] = e;
        e2a_[e] = a;
      }
    }
    const auto& outs_a = actual_.output()->inputs();
    const auto& outs_e = expected_.output()->inputs();
    if (outs_a.size() != outs_e.size()) {
      differ(actual_.output(), expected_.output(),
             fmt::format("the graph returns {} value{}, expected {}", outs_a.size(),
                         outs_a.size() == 1 ? "" : "s", outs_e.size()));
    }
    for (size_t i = 0; i < std::min(outs_a.size(), outs_e.size()); ++i) {
      compare_inputs(outs_a[i], outs_e[i], actual_.output(), expected_.output(),
                     fmt::format("output {}", i));
    }
    while (!queue_.empty()) {
      Pair p = queue_.front();
      queue_.pop_front();
      compare_nodes(*p.actual, *p.expected, p.where);
    }
    check_unpaired(actual_, a2e_, bad_a_, "the graph has a node the expected graph lacks: ");
    check_unpaired(expected_, e2a_, bad_e_, "the graph lacks a node the expected graph has: ");
    GraphMatch out;
    out.equal = reason_.empty();
    out.reason = reason_;
    out.expected = format_graph_compact(expected_, bad_e_, "    ");
    out.actual = format_graph_compact(actual_, bad_a_, "    ");
    return out;
  }

 private:
  void differ(const Node* a, const Node* e, const std::string& why) {
    if (a != nullptr) bad_a_.insert(a);
    if (e != nullptr) bad_e_.insert(e);
    if (reason_.empty()) reason_ = why;
  }

  /// Pairs `a` with `e` (queueing them for comparison) unless either is paired already.
  void pair(const Node* a, const Node* e, const std::string& where) {
    auto ia = a2e_.find(a);
    auto ie = e2a_.find(e);
    if (ia != a2e_.end() && ia->second == e) return;
    if (ia == a2e_.end() && ie == e2a_.end()) {
      a2e_[a] = e;
      e2a_[e] = a;
      queue_.push_back({a, e, where});
      return;
    }
    std::string why = where + ": expected " + describe(*e) + ", got " + describe(*a);
    if (a->kind() == e->kind() && a->target() == e->target()) {
      why +=
          " (the graphs share values differently: one uses a value twice where the other "
          "has two)";
    }
    differ(a, e, why);
  }

  void compare_inputs(const Input& a, const Input& e, const Node* user_a, const Node* user_e,
                      const std::string& where) {
    if (a.is_node() && e.is_node()) return pair(a.node, e.node, where);
    bool same = a.kind == e.kind && (!a.is_scalar() || a.scalar == e.scalar);
    if (!same) differ(user_a, user_e, where + ": expected " + describe(e) + ", got " + describe(a));
  }

  void compare_nodes(const Node& a, const Node& e, const std::string& where) {
    if (a.kind() != e.kind() || a.target() != e.target()) {
      if (a.kind() == NodeKind::kGetAttr && e.kind() == NodeKind::kGetAttr) {
        compare_constants(a, e, where);
        return;
      }
      differ(&a, &e, where + ": expected " + describe(e) + ", got " + describe(a));
      // Different ops with as many operands (relu for relu6) still pair their operands, so
      // the diff marks only this node; otherwise the operands cannot be lined up.
      if (a.kind() != NodeKind::kCallFunction || e.kind() != NodeKind::kCallFunction ||
          a.inputs().size() != e.inputs().size()) {
        return;
      }
    }
    if (a.kind() == NodeKind::kGetAttr) return compare_constants(a, e, where);
    if (a.kind() != NodeKind::kCallFunction) return;
    if (a.schema() == e.schema()) {
      for (size_t i = 0; i < a.attrs().size(); ++i) {
        if (attr_equal(a.attrs()[i], e.attrs()[i])) continue;
        differ(&a, &e,
               fmt::format("{}: {} has {}={}, expected {}", where, node_ref(a),
                           a.schema()->attrs[i].name, attr_to_string(a.attrs()[i]),
                           attr_to_string(e.attrs()[i])));
        break;
      }
    }
    if (a.inputs().size() != e.inputs().size() && a.schema() == e.schema()) {
      differ(&a, &e,
             fmt::format("{}: {} has {} operands, expected {}", where, node_ref(a),
                         a.inputs().size(), e.inputs().size()));
    }
    for (size_t i = 0; i < std::min(a.inputs().size(), e.inputs().size()); ++i) {
      std::string operand = i < a.schema()->operands.size() && !a.schema()->operands[i].variadic
                                ? "'" + a.schema()->operands[i].name + "'"
                                : std::to_string(i);
      compare_inputs(a.input(i), e.input(i), &a, &e,
                     fmt::format("operand {} of {}", operand, node_ref(a)));
    }
  }

  void compare_constants(const Node& a, const Node& e, const std::string& where) {
    const ConstantTensor* ta = actual_.constants().find(a.target());
    const ConstantTensor* te = expected_.constants().find(e.target());
    if (ta == nullptr || te == nullptr) {
      differ(&a, &e,
             where + ": constant '" + (ta == nullptr ? a.target() : e.target()) + "' has no value");
      return;
    }
    if (ta->type() != te->type()) {
      differ(&a, &e,
             fmt::format("{}: constant '{}' is {}, expected {} like '{}'", where, a.name(),
                         type_to_string(ta->type()), type_to_string(te->type()), e.name()));
      return;
    }
    if (ta->buffer != te->buffer) {
      auto kind = [](const ConstantTensor* t) { return t->buffer ? "a buffer" : "a parameter"; };
      differ(&a, &e,
             fmt::format("{}: constant '{}' is {}, expected {} like '{}'", where, a.name(),
                         kind(ta), kind(te), e.name()));
      return;
    }
    if (options_.any_constants.count(e.target()) > 0) return;
    bool floating = te->dtype() == DType::kFloat32 || te->dtype() == DType::kFloat64;
    for (int64_t i = 0; i < te->numel(); ++i) {
      double x = element(*ta, i);
      double y = element(*te, i);
      bool ok =
          floating ? std::fabs(x - y) <= options_.atol + options_.rtol * std::fabs(y) : x == y;
      if (ok) continue;
      differ(&a, &e,
             fmt::format("{}: constant '{}' differs from the values of '{}' at element "
                         "{}: {:.6g}, expected {:.6g}",
                         where, a.name(), e.name(), i, x, y));
      return;
    }
  }

  void check_unpaired(const Graph& g, const std::unordered_map<const Node*, const Node*>& paired,
                      std::set<const Node*>& bad, const std::string& why) {
    for (const Node* n : g.nodes()) {
      if (n->is(NodeKind::kPlaceholder) || n->is(NodeKind::kOutput) || paired.count(n) > 0)
        continue;
      bad.insert(n);
      if (reason_.empty()) reason_ = why + describe(*n);
    }
  }

  const Graph& actual_;
  const Graph& expected_;
  const GraphMatchOptions& options_;
  std::unordered_map<const Node*, const Node*> a2e_, e2a_;
  struct Pair {
    const Node* actual;
    const Node* expected;
    std::string where;  // how the walk got here: "output 0", "operand 'weight' of 'conv2d'"
  };
  std::deque<Pair> queue_;
  std::set<const Node*> bad_a_, bad_e_;
  std::string reason_;
};

}  // namespace

GraphMatch match_graphs(const Graph& actual, const Graph& expected,
                        const GraphMatchOptions& options) {
  return Walker(actual, expected, options).run();
}

std::string format_graph_compact(const Graph& graph, const std::set<const Node*>& marked,
                                 const std::string& indent) {
  std::string out;
  for (const Node* n : graph.nodes()) {
    std::string type = n->type() ? type_to_string(*n->type()) : "?";
    std::string line;
    switch (n->kind()) {
      case NodeKind::kPlaceholder:
        line = n->name() + ": " + type;
        break;
      case NodeKind::kGetAttr:
        line = n->name() + " = constant : " + type;
        break;
      case NodeKind::kCallFunction:
        line = n->name() + " = " + format_node_call(*n) + " : " + type;
        break;
      case NodeKind::kOutput: {
        std::vector<std::string> names;
        for (const Input& in : n->inputs())
          names.push_back(in.is_node() ? in.node->name() : "None");
        line = "return " + fmt::format("{}", fmt::join(names, ", "));
        break;
      }
    }
    // One line per node: a name's newline must not start another.
    out += indent + (marked.count(n) > 0 ? "! " : "  ") + escape_for_terminal(line) + "\n";
  }
  return out;
}

}  // namespace graft::ruletest
