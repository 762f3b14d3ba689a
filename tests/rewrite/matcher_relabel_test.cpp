// Matcher::relabel against a fresh labelling: after any edit, relabelling what the edit touched
// must leave every node in the state label_all() gives the edited graph. relabel() labels its
// region in the order it is given (not graph order) and labels a node again when an operand's
// state changes after it; these tests hand it the touched nodes users first, the worst order.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/matcher.h"
#include "engine/op_registry.h"
#include "tests/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

// Patterns three ops tall, so that a change reaches anchors up to three levels above it.
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

/// "relu neg relu …": the chain's ops in graph order.
std::string ops(const Graph& graph) {
  std::string out;
  for (const Node* n : graph.nodes()) {
    if (n->is(NodeKind::kCallFunction)) out += (out.empty() ? "" : " ") + n->target();
  }
  return out;
}

}  // namespace

TEST_CASE("relabel in any order gives the states a fresh labelling gives", "[rewrite][matcher]") {
  RuleSet rules = rules_from_text(kTallRules);
  CompiledRules compiled(rules);
  REQUIRE(compiled.max_height() >= 3);
  // A chain x -> op -> op -> … whose ops follow a fixed pseudo-random sequence.
  Graph graph;
  Node* prev = graph.add_placeholder("x", std::nullopt);
  uint32_t bits = 0x9e3779b9u;
  auto next_bit = [&]() {
    bits ^= bits << 13;
    bits ^= bits >> 17;
    bits ^= bits << 5;
    return bits & 1u;
  };
  for (int i = 0; i < 60; ++i) {
    prev = graph.add_call(next_bit() ? op("relu") : op("neg"), {Input::of(prev)}, {});
  }
  graph.set_output({Input::of(prev)});
  Matcher incremental(compiled, graph);
  incremental.label_all();

  // Flip one op at a time (relu <-> neg): a new node takes the old one's place, as a rewrite's
  // replacement does. Its users — whose states change with it, and theirs in turn — are handed
  // to relabel() before it.
  std::vector<Node*> chain;
  for (Node* n : graph.nodes()) {
    if (n->is(NodeKind::kCallFunction)) chain.push_back(n);
  }
  size_t changed_anchors = 0;
  for (size_t step = 0; step < 40; ++step) {
    size_t at = (step * 37) % chain.size();
    Node* old = chain[at];
    graph.set_insert_point(old);
    Node* flipped =
        graph.add_call(old->is_op("relu") ? op("neg") : op("relu"), {old->input(0)}, {});
    graph.set_insert_point(nullptr);
    std::vector<Node*> touched(old->users().begin(), old->users().end());
    graph.replace_all_uses_with(old, flipped);
    graph.erase(old);
    chain[at] = flipped;
    touched.push_back(flipped);
    if (old->input_node(0) != nullptr) touched.push_back(old->input_node(0));  // one use fewer

    std::vector<std::vector<uint32_t>> before = anchors_of(incremental, graph);
    incremental.relabel(touched);
    Matcher fresh(compiled, graph);
    fresh.label_all();
    INFO("step " << step << ": " << ops(graph));
    REQUIRE(anchors_of(incremental, graph) == anchors_of(fresh, graph));
    changed_anchors += before != anchors_of(fresh, graph) ? 1 : 0;
  }
  // The flips did change which rules anchor where (the test exercised relabelling).
  CHECK(changed_anchors > 10);
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
  // b twice and c (b's user) given: c once, then their users up to max_height (3) above.
  REQUIRE(compiled.max_height() == 3);
  std::vector<Node*> region = matcher.relabel({c, b, b});
  REQUIRE(region.size() >= 2);
  CHECK(region[0] == c);
  CHECK(region[1] == b);
  std::vector<Node*> sorted = region;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  CHECK(std::find(region.begin(), region.end(), a) == region.end());  // below the change
  CHECK(region.size() == 5);                                          // c b d e f
  CHECK(std::find(region.begin(), region.end(), f) != region.end());  // 3 above c
  CHECK(std::find(region.begin(), region.end(), g) == region.end());  // 4 above c
}
