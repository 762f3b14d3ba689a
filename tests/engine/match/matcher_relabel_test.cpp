// Matcher::relabel against a fresh labelling: after any edit, relabelling what the edit touched
// must leave every node in the state label_all() gives the edited graph. relabel() does not
// put its region in graph order; it labels each node after the operands of it in the region.
// These tests hand it the touched nodes in reverse graph order, over graphs where one value
// feeds a node twice and through two paths.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "engine/match/matcher.h"
#include "engine/ops/op_registry.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

// Patterns up to three ops tall, so that a change reaches anchors up to three levels above
// it, and one over two operands.
const char* const kTallRules = R"(
rule relu_neg_relu {
  pattern(x) { return relu(neg(relu(x))) }
  replacement { return x }
}
rule neg_relu {
  pattern(x) { return neg(relu(x)) }
  replacement { return x }
}
rule neg_neg_neg {
  pattern(x) { return neg(neg(neg(x))) }
  replacement { return x }
}
rule add_relu_neg {
  pattern(x, y) { return add(relu(x), neg(y)) }
  replacement { return x }
}
)";

const OpSchema& op(const char* name) {
  const OpSchema* schema = OpRegistry::get().find(name);
  REQUIRE(schema != nullptr);
  return *schema;
}

/// Every node's anchored rules under `matcher`, in graph order.
std::vector<std::vector<uint32_t>> anchors_of(Matcher& matcher, const Graph& graph) {
  std::vector<std::vector<uint32_t>> out;
  for (const Node* n : graph.nodes()) out.push_back(matcher.anchored_rules(n));
  return out;
}

/// A fixed pseudo-random bit sequence (xorshift).
struct Bits {
  uint32_t state = 0x9e3779b9u;
  uint32_t next(uint32_t below) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state % below;
  }
};

}  // namespace

TEST_CASE("relabel in any order gives the states a fresh labelling gives", "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(kTallRules);
  CompiledRules compiled(rules);
  REQUIRE(compiled.max_height() == 3);
  // A chain of relu and neg, with now and then an add of the last two values in either order
  // (two paths to one value: add(b, a) with a = relu(b) waits for a, which waits for b) or of
  // the last value with itself (one operand twice).
  Graph graph;
  Bits bits;
  Node* before = graph.add_placeholder("x", std::nullopt);
  Node* last = graph.add_call(op("relu"), {Input::of(before)}, {});
  for (int i = 0; i < 80; ++i) {
    Node* next = nullptr;
    switch (bits.next(7)) {
      case 0:
        next = graph.add_call(op("add"), {Input::of(last), Input::of(before)},
                              Graph::default_attrs(op("add")));
        break;
      case 6:
        next = graph.add_call(op("add"), {Input::of(before), Input::of(last)},
                              Graph::default_attrs(op("add")));
        break;
      case 1:
        next = graph.add_call(op("add"), {Input::of(last), Input::of(last)},
                              Graph::default_attrs(op("add")));
        break;
      case 2:
      case 3:
        next = graph.add_call(op("relu"), {Input::of(last)}, {});
        break;
      default:
        next = graph.add_call(op("neg"), {Input::of(last)}, {});
        break;
    }
    before = last;
    last = next;
  }
  graph.set_output({Input::of(last)});
  Matcher incremental(compiled, graph);
  incremental.label_all();

  // Each round flips a few unary ops (relu <-> neg): a new node takes the old one's place, as a
  // rewrite's replacement does, and the old one is erased. relabel() then gets everything the
  // round touched in reverse graph order: users before the new nodes, later flips first.
  size_t changed_rounds = 0;
  for (int round = 0; round < 30; ++round) {
    std::vector<Node*> unary;
    for (Node* n : graph.nodes()) {
      if (n->is_op("relu") || n->is_op("neg")) unary.push_back(n);
    }
    std::map<const Node*, std::vector<uint32_t>> stale;  // each node's anchored rules before
    for (const Node* n : graph.nodes()) stale[n] = incremental.anchored_rules(n);
    std::vector<Node*> touched;
    for (int flip = 0; flip < 1 + round % 4; ++flip) {
      Node* old = unary[bits.next(static_cast<uint32_t>(unary.size()))];
      if (old->is_dead()) continue;
      Node* operand = old->input_node(0);
      graph.set_insert_point(old);
      Node* flipped =
          graph.add_call(old->is_op("relu") ? op("neg") : op("relu"), {Input::of(operand)}, {});
      graph.set_insert_point(nullptr);
      touched.insert(touched.end(), old->users().begin(), old->users().end());
      graph.replace_all_uses_with(old, flipped);
      graph.erase(old);
      touched.push_back(flipped);
      touched.push_back(operand);  // one user gone, one come
    }
    std::vector<Node*> live;
    for (Node* n : touched) {
      if (!n->is_dead()) live.push_back(n);
    }
    Graph::sort_in_order(live);
    std::reverse(live.begin(), live.end());
    for (Node* n : touched) {
      if (n->is_dead()) live.push_back(n);  // a user erased by a later flip: skipped
    }

    uint64_t labelled_before = incremental.states_relabelled();
    std::vector<Node*> region = incremental.relabel(live);
    Matcher fresh(compiled, graph);
    fresh.label_all();
    INFO("round " << round << ": " << ops_of(graph));
    REQUIRE(anchors_of(incremental, graph) == anchors_of(fresh, graph));
    // Each node of the region was labelled once, and the region lists each once.
    CHECK(incremental.states_relabelled() - labelled_before == region.size());
    std::vector<Node*> sorted = region;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    // Rounds where a node that was there before (not a new one, whose state starts empty)
    // changed which rules anchor at it: the change travelled up through users.
    bool changed = false;
    for (const Node* n : graph.nodes()) {
      auto it = stale.find(n);
      changed = changed || (it != stale.end() && it->second != fresh.anchored_rules(n));
    }
    changed_rounds += changed ? 1 : 0;
  }
  // The flips changed which rules anchor at the nodes above them (relabelling was exercised).
  CHECK(changed_rounds > 10);
}

TEST_CASE("relabel returns its region once each, the touched nodes first", "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(kTallRules);
  CompiledRules compiled(rules);
  Graph graph;
  Node* x = graph.add_placeholder("x", std::nullopt);
  Node* a = graph.add_call(op("relu"), {Input::of(x)}, {});
  Node* b = graph.add_call(op("neg"), {Input::of(a)}, {});
  Node* c = graph.add_call(op("relu"), {Input::of(b)}, {});
  Node* d = graph.add_call(op("neg"), {Input::of(c)}, {});
  Node* e = graph.add_call(op("relu"), {Input::of(d)}, {});
  Node* f = graph.add_call(op("neg"), {Input::of(e)}, {});
  Node* g = graph.add_call(op("relu"), {Input::of(f)}, {});
  graph.set_output({Input::of(g)});
  Matcher matcher(compiled, graph);
  matcher.label_all();
  // c, then b twice: the region is c and b, then their users up to max_height (3) above them.
  REQUIRE(compiled.max_height() == 3);
  std::vector<Node*> region = matcher.relabel({c, b, b});
  REQUIRE(region.size() == 5);  // c b d e f
  CHECK(region[0] == c);
  CHECK(region[1] == b);
  CHECK(std::find(region.begin(), region.end(), a) == region.end());  // below the change
  CHECK(std::find(region.begin(), region.end(), f) != region.end());  // 3 above c
  CHECK(std::find(region.begin(), region.end(), g) == region.end());  // 4 above c
}
