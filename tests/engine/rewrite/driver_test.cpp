// The rewrite driver's semantics, modelled on torch.fx's subgraph-rewriter behaviours (issue 4):
// one match and many, overlaps, interior values used outside a match, multi-output patterns,
// shared parameters, literals and attributes, commutativity, replacements of every size, the
// whole graph, fixpoints, ping-pong, and placement of multi-output replacements.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "engine/io/graph_printer.h"
#include "engine/ir/verifier.h"
#include "engine/support/source_manager.h"
#include "eval/constant_folder.h"
#include "eval/reference.h"
#include "tests/engine/rewrite/rewrite_testing.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using namespace graft::testing;

namespace {

/// The nodes of a model: `inputs`, then a chain of `op` nodes "<prefix>0", "<prefix>1", …,
/// the first reading `first` and each next one the previous (followed by `extra` operands,
/// if any), with attribute `attr` set to the next of `values`, and the output reading the last.
std::string attr_chain(std::vector<std::string> inputs, const std::string& first,
                       const std::string& op, const std::string& extra, const std::string& attr,
                       const std::vector<std::string>& values, const std::string& prefix) {
  std::string prev = first;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string name = prefix + std::to_string(i);
    const std::string& from = prev;  // const: not std::ref
    inputs.push_back(call(name, op, ref(from) + extra, "\"" + attr + "\": " + values[i]));
    prev = name;
  }
  inputs.push_back(output({prev}));
  return join(inputs);
}

const char* const kRemoveDoubleRelu = R"(
rule double_relu {
  pattern(x) { y = relu(x)
               return relu(y) }
  where uses(y) == 1
  replacement { return relu(x) }
}
)";

}  // namespace

TEST_CASE("one match and many", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(kRemoveDoubleRelu);
  Model one = model_from_nodes(join({input("x"), call("a", "relu", ref("x")),
                                     call("b", "relu", ref("a")), output({"b"})}));
  Rewritten r = rewrite(*one.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(ops_of(*one.graph) == "relu -> relu");
  CHECK(r.result.stats[0].applied == 1);

  // Three separate pairs in one graph: three rewrites in one pass.
  Model many = model_from_nodes(join(
      {input("x"), call("a1", "relu", ref("x")), call("b1", "relu", ref("a1")),
       call("a2", "relu", ref("x")), call("b2", "relu", ref("a2")), call("a3", "relu", ref("x")),
       call("b3", "relu", ref("a3")), output({"b1", "b2", "b3"})}));
  r = rewrite(*many.graph, rules);
  CHECK(r.result.stats[0].applied == 3);
  CHECK(ops_of(*many.graph) == "relu relu relu -> relu relu relu");
}

TEST_CASE("rules are timed only when asked", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(kRemoveDoubleRelu);
  CompiledRules compiled(rules);
  for (bool timed : {false, true}) {
    Model m = model_from_nodes(join(
        {input("x"), call("a", "relu", ref("x")), call("b", "relu", ref("a")), output({"b"})}));
    RewriteOptions options;
    options.time_rules = timed;
    DiagnosticEngine diags;
    RewriteResult result = rewrite_graph(*m.graph, compiled, options, diags);
    INFO("timed: " << timed);
    REQUIRE(result.ok);
    CHECK(result.stats[0].applied == 1);
    // A steady clock with nanosecond ticks: matching and rewriting take some.
    CHECK((result.stats[0].seconds > 0) == timed);
  }
}

TEST_CASE("overlapping candidates: the first wins, nothing is rewritten twice", "[rewrite][driver]") {
  // relu(relu(relu(x))): both (r1, r2) and (r2, r3) match; in one `once` pass only the first
  // (in graph order) is applied.
  RuleSet rules = rules_from_text(std::string(kRemoveDoubleRelu) +
                                  "phase p once { double_relu }\n");
  Model m = model_from_nodes(join({input("x"), call("r1", "relu", ref("x")),
                                   call("r2", "relu", ref("r1")), call("r3", "relu", ref("r2")),
                                   output({"r3"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.stats[0].matches == 2);
  CHECK(r.result.stats[0].applied == 1);
  CHECK(ops_of(*m.graph) == "relu relu -> relu");
}

TEST_CASE("an interior value with an outside user blocks the match", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(
rule fuse { pattern(x) { y = relu(x)
                         return sigmoid(y) }
            replacement { return silu(x) } }
)");
  Model m = model_from_nodes(join({input("x"), call("y", "relu", ref("x")),
                                   call("s", "sigmoid", ref("y")), call("t", "tanh", ref("y")),
                                   output({"s", "t"})}));
  Rewritten r = rewrite(*m.graph, rules);
  CHECK(r.result.stats[0].matches == 1);
  CHECK(r.result.stats[0].applied == 0);
  CHECK(ops_of(*m.graph) == "relu sigmoid tanh -> sigmoid tanh");
}

TEST_CASE("a pattern output with outside users is allowed", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(
rule silu { pattern(x) { return mul(x, sigmoid(x)) } replacement { return silu(x) } }
)");
  Model m = model_from_nodes(join({input("x"), call("s", "sigmoid", ref("x")),
                                   call("m", "mul", ref("x") + ", " + ref("s")),
                                   call("u1", "tanh", ref("m")), call("u2", "exp", ref("m")),
                                   output({"u1", "u2", "m"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.stats[0].applied == 1);
  CHECK(ops_of(*m.graph) == "silu tanh exp -> tanh exp silu");
}

TEST_CASE("multi-output patterns join through shared inputs", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(
rule cse_relu {
  pattern(x) { a = relu(x)
               b = relu(x)
               return a, b }
  replacement { r = relu(x)
                return r, r }
}
)");
  Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")),
                                   call("b", "relu", ref("x")), call("u", "add", ref("a") + ", " + ref("b")),
                                   output({"u"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.result.stats[0].applied == 1);
  CHECK(ops_of(*m.graph) == "relu add -> add");
  const Node* add = m.graph->output()->input_node(0);
  CHECK(add->input_node(0) == add->input_node(1));
}

TEST_CASE("two pattern parameters may bind the same graph node", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(
rule add_to_mul { pattern(x, y) { return ordered add(x, y) } replacement { return mul(x, y) } }
)");
  Model m = model_from_nodes(join({input("a"), call("s", "add", ref("a") + ", " + ref("a")),
                                   output({"s"})}));
  Rewritten r = rewrite(*m.graph, rules);
  CHECK(r.result.stats[0].applied == 1);
  CHECK(ops_of(*m.graph) == "mul -> mul");
  // ... while one parameter used twice demands the same node.
  RuleSet same = rules_from_text(R"(
rule double { pattern(x) { return add(x, x) } replacement { return mul(x, 2) } }
)");
  Model two = model_from_nodes(join({input("a"), input("b"), call("s", "add", ref("a") + ", " + ref("b")),
                                     output({"s"})}));
  r = rewrite(*two.graph, same);
  CHECK(r.result.stats[0].applied == 0);
  CHECK(ops_of(*two.graph) == "add -> add");
}

TEST_CASE("literals and attributes are matched", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(
rule add_zero { pattern(x) { return add(x, 0) } replacement { return x } }
rule softmax_last { pattern(x) { return softmax(x, dim=-1) } replacement { return log_softmax(x, dim=-1) } }
)");
  Model m = model_from_nodes(join({input("x"), call("a", "add", ref("x") + ", 0"),
                                   call("b", "add", ref("a") + ", 1"),
                                   call("s1", "softmax", ref("b"), R"("dim": -1)"),
                                   call("s2", "softmax", ref("b"), R"("dim": 0)"),
                                   output({"s1", "s2"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.stats[0].applied == 1);
  CHECK(r.result.stats[1].applied == 1);
  CHECK(ops_of(*m.graph) == "add log_softmax softmax -> log_softmax softmax");
}

TEST_CASE("literal attributes select the right rule along runs of equal and differing values",
          "[rewrite][driver]") {
  // Four literal slopes are four predicates on leaky_relu, enough for the matcher to remember
  // the last attribute list per op (Matcher::predicate_mask): runs of one slope, changes of
  // slope, and a slope no rule names must each get their own answer.
  RuleSet rules = rules_from_text(R"(
rule slope1 { pattern(x) { return leaky_relu(x, negative_slope=0.1) } replacement { return neg(x) } }
rule slope2 { pattern(x) { return leaky_relu(x, negative_slope=0.2) } replacement { return abs(x) } }
rule slope3 { pattern(x) { return leaky_relu(x, negative_slope=0.3) } replacement { return relu(x) } }
rule slope4 { pattern(x) { return leaky_relu(x, negative_slope=0.4) } replacement { return sigmoid(x) } }
)");
  const std::vector<std::string> slopes = {"0.1", "0.1", "0.3", "0.2", "0.2", "0.4", "0.5", "0.1"};
  Model m = model_from_nodes(
      attr_chain({input("x")}, "x", "leaky_relu", "", "negative_slope", slopes, "l"));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  CHECK(ops_of(*m.graph) == "neg neg relu abs abs sigmoid leaky_relu neg -> neg");
}

TEST_CASE("attribute variables reach each replacement along runs of equal and differing values",
          "[rewrite][driver]") {
  // The driver reuses a replacement op's last attribute list while the `$` variables it was
  // made from are identical (Driver::attrs_of): each node must still get its own values, also
  // 0.0 after -0.0, and (through a Scalar attribute, which keeps them apart) an int after the
  // equal float.
  RuleSet rules = rules_from_text(R"(
rule leaky_to_elu {
  pattern(x) { return leaky_relu(x, negative_slope=$s) }
  replacement { return elu(x, alpha=$s) }
}
)");
  const std::vector<std::string> slopes = {"0.1", "0.1", "0.3", "-0.0", "0.0", "0.0", "0.1"};
  Model m = model_from_nodes(
      attr_chain({input("x")}, "x", "leaky_relu", "", "negative_slope", slopes, "l"));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  REQUIRE(r.result.stats[0].applied == slopes.size());
  std::vector<double> alphas;
  for (Node* n : m.graph->nodes()) {
    if (n->is_op("elu")) alphas.push_back(std::get<double>(n->attr("alpha")));
  }
  REQUIRE(alphas.size() == slopes.size());
  for (size_t i = 0; i < slopes.size(); ++i) {
    INFO("node " << i << ", slope " << slopes[i]);
    CHECK(alphas[i] == std::stod(slopes[i]));
    CHECK(std::signbit(alphas[i]) == (slopes[i][0] == '-'));
  }

  RuleSet alpha_rules = rules_from_text(R"(
rule add_to_sub {
  pattern(x, y) { return add(x, y, alpha=$a) }
  replacement { return sub(x, y, alpha=$a) }
}
)");
  const std::vector<std::string> alpha_texts = {"2", "2.0", "2.0", "2", "1", "1.0"};
  Model m2 = model_from_nodes(
      attr_chain({input("x"), input("y")}, "x", "add", ", " + ref("y"), "alpha", alpha_texts, "a"));
  Rewritten r2 = rewrite(*m2.graph, alpha_rules);
  INFO(r2.diagnostics);
  REQUIRE(r2.result.ok);
  std::vector<std::string> got;
  for (Node* n : m2.graph->nodes()) {
    if (n->is_op("sub")) got.push_back(attr_to_string(n->attr("alpha")));
  }
  CHECK(got == alpha_texts);
}

TEST_CASE("matched op names reach each replacement along runs of equal and differing ops",
          "[rewrite][driver]") {
  // op_name(a) is read from the matched node: the driver's reuse of a replacement op's last
  // attribute list (Driver::attrs_of) must see the name change as it sees a `$` variable's.
  RuleSet rules = rules_from_text(R"(
rule linear_act {
  pattern(x, w) { y = linear(x, w); a = (relu | tanh | silu)(y); return a }
  replacement { return linear_post(x, w, activation=op_name(a)) }
}
)");
  const std::vector<std::string> acts = {"relu", "relu", "tanh", "relu", "silu", "silu"};
  std::vector<std::string> nodes = {input("x"), input("w", "[4, 3]")};
  std::vector<std::string> outputs;
  for (size_t i = 0; i < acts.size(); ++i) {
    const std::string lin = "l" + std::to_string(i);  // const: not std::ref
    nodes.push_back(call(lin, "linear", ref("x") + ", " + ref("w")));
    nodes.push_back(call("a" + std::to_string(i), acts[i], ref(lin)));
    outputs.push_back("a" + std::to_string(i));
  }
  nodes.push_back(output(outputs));
  Model m = model_from_nodes(join(nodes));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  std::vector<std::string> got;
  for (Node* n : m.graph->nodes()) {
    if (n->is_op("linear_post")) got.push_back(std::get<std::string>(n->attr("activation")));
  }
  CHECK(got == acts);
}

TEST_CASE("a fixpoint relabels small and large regions alike", "[rewrite][driver]") {
  // A long relu chain collapses over several iterations with relabelled regions of every
  // size, from most of the graph to a few nodes beside 3000 unrelated ones (the matcher once
  // labelled large and small regions differently). Either way it ends as one relu.
  RuleSet rules = rules_from_text(kRemoveDoubleRelu);
  for (int side : {0, 3000}) {
    std::vector<std::string> nodes = {input("x")};
    std::string prev = "x";
    for (int i = 0; i < side; ++i) {
      const std::string name = "n" + std::to_string(i);
      const std::string from = i == 0 ? std::string("x") : "n" + std::to_string(i - 1);
      nodes.push_back(call(name, "neg", ref(from)));
    }
    for (int i = 0; i < 300; ++i) {
      const std::string name = "r" + std::to_string(i), from = prev;
      nodes.push_back(call(name, "relu", ref(from)));
      prev = name;
    }
    nodes.push_back(output(side == 0
                               ? std::vector<std::string>{prev}
                               : std::vector<std::string>{prev, "n" + std::to_string(side - 1)}));
    Model m = model_from_nodes(join(nodes));
    Rewritten r = rewrite(*m.graph, rules);
    INFO(r.diagnostics);
    REQUIRE(r.result.ok);
    size_t relus = 0;
    for (const Node* n : m.graph->nodes()) relus += n->is_op("relu") ? 1 : 0;
    CHECK(relus == 1);
    CHECK(m.graph->size() == static_cast<size_t>(side) + 3);  // x, the negs, one relu, output
  }
}

TEST_CASE("commutative operands match in either order unless ordered", "[rewrite][driver]") {
  const std::string graph = join({input("x"), call("s", "sigmoid", ref("x")),
                                  call("m", "mul", ref("s") + ", " + ref("x")), output({"m"})});
  Model either = model_from_nodes(graph);
  Rewritten r = rewrite(*either.graph, rules_from_text(R"(
rule silu { pattern(x) { return mul(x, sigmoid(x)) } replacement { return silu(x) } }
)"));
  CHECK(ops_of(*either.graph) == "silu -> silu");
  Model ordered = model_from_nodes(graph);
  r = rewrite(*ordered.graph, rules_from_text(R"(
rule silu { pattern(x) { return ordered mul(x, sigmoid(x)) } replacement { return silu(x) } }
)"));
  CHECK(ops_of(*ordered.graph) == "sigmoid mul -> mul");
}

TEST_CASE("replacements with fewer, more and zero nodes", "[rewrite][driver]") {
  const std::string graph = join({input("x"), call("a", "relu", ref("x")), call("b", "tanh", ref("a")),
                                  output({"b"})});
  SECTION("more") {
    Model m = model_from_nodes(graph);
    rewrite(*m.graph, rules_from_text(R"(
rule expand { pattern(x) { return tanh(x) } replacement { e = exp(x * 2)
                                                          return (e - 1) / (e + 1) } }
)"));
    CHECK(ops_of(*m.graph) == "relu mul exp sub add div -> div");
  }
  SECTION("zero (identity)") {
    Model m = model_from_nodes(graph);
    rewrite(*m.graph, rules_from_text(R"(
rule drop { pattern(x) { return tanh(x) } replacement { return x } }
)"));
    CHECK(ops_of(*m.graph) == "relu -> relu");
  }
  SECTION("fewer") {
    Model m = model_from_nodes(graph);
    rewrite(*m.graph, rules_from_text(R"(
rule merge { pattern(x) { return tanh(relu(x)) } replacement { return sigmoid(x) } }
)"));
    CHECK(ops_of(*m.graph) == "sigmoid -> sigmoid");
  }
}

TEST_CASE("a pattern may be the whole graph", "[rewrite][driver]") {
  Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")), output({"a"})}));
  Rewritten r = rewrite(*m.graph, rules_from_text(R"(
rule all { pattern(x) { return relu(x) } replacement { return x } }
)"));
  CHECK(r.result.stats[0].applied == 1);
  CHECK(m.graph->output()->input_node(0)->name() == "x");
  DiagnosticEngine diags;
  CHECK(verify_graph(*m.graph, diags));
}

TEST_CASE("a replacement that creates a match for another rule reaches a fixpoint", "[rewrite][driver]") {
  // sub(x, y) -> add(x, neg(y)); add(x, neg(y)) with y = neg(z) -> add(x, z): chained rules.
  RuleSet rules = rules_from_text(R"(
rule sub_to_add { pattern(x, y) { return sub(x, y) } replacement { return add(x, neg(y)) } }
rule double_neg { pattern(z) { return neg(neg(z)) } replacement { return z } }
phase p fixpoint(max=4) { sub_to_add, double_neg }
)");
  Model m = model_from_nodes(join({input("x"), input("z"), call("n", "neg", ref("z")),
                                   call("s", "sub", ref("x") + ", " + ref("n")), output({"s"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(ops_of(*m.graph) == "add -> add");
  CHECK(r.result.applied.size() == 2);
  CHECK(r.result.applied[1].phase_iteration == 2);
}

TEST_CASE("a ping-pong pair is stopped with a diagnostic naming the rules", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(R"(
rule there { pattern(x) { return relu(x) } replacement { return relu6(x) } }
rule back { pattern(x) { return relu6(x) } replacement { return relu(x) } }
phase p fixpoint(max=5) { there, back }
)");
  Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")), output({"a"})}));
  Rewritten r = rewrite(*m.graph, rules);
  CHECK_FALSE(r.result.ok);
  CHECK_THAT(r.diagnostics, Catch::Contains("phase 'p' did not reach a fixpoint in 5 iterations: "
                                            "rules still matching: back, there"));
}

TEST_CASE("a rule that keeps growing the graph is stopped at the created-nodes limit",
          "[rewrite][driver]") {
  // relu(x) -> relu(x) + relu(x) doubles the relus every iteration: 2^32 of them by the
  // default phase's iteration limit. The driver stops once the rewrites created more nodes
  // than allowed, between two rewrites, so the graph stays valid (tests/property, case 10).
  RuleSet rules = rules_from_text(R"(
rule doubling { pattern(x) { return relu(x) } replacement { return relu(x) + relu(x) } }
)");
  Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")), output({"a"})}));
  CompiledRules compiled(rules);
  RewriteOptions options;
  options.max_created_nodes = 100;
  DiagnosticEngine diags;
  RewriteResult result = rewrite_graph(*m.graph, compiled, options, diags);
  CHECK_FALSE(result.ok);
  CHECK_THAT(diags.render(), Catch::Contains("phase 'default' stopped: 102 nodes were created in "
                                             "a graph of 3 (limit 100); the rules that fired most: "
                                             "doubling (34 rewrites)"));
  CHECK(m.graph->id_bound() <= 3 + 100 + 3);
  DiagnosticEngine lint;
  CHECK(verify_graph(*m.graph, lint));
  CHECK(default_created_nodes_limit(1000) == 16 * 1000 + 4096);
}

TEST_CASE("a multi-output replacement whose outputs share no inputs is placed validly",
          "[rewrite][driver]") {
  // The pattern's outputs are used early (u) and late (v); the replacement's two outputs read
  // different inputs. Each replacement op goes right after its own inputs, so every consumer
  // still comes after its producer (torch.fx inserts the whole replacement at one point).
  RuleSet rules = rules_from_text(R"(
rule split {
  pattern(x, y) { s = add(x, y)
                  a = relu(s)
                  b = tanh(s)
                  return a, b }
  replacement { return relu(x), tanh(y) }
}
)");
  Model m = model_from_nodes(join({input("x"), input("y"), call("s", "add", ref("x") + ", " + ref("y")),
                                   call("a", "relu", ref("s")), call("u", "exp", ref("a")),
                                   call("b", "tanh", ref("s")), call("v", "neg", ref("b")),
                                   output({"u", "v"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.result.stats[0].applied == 1);
  DiagnosticEngine diags;
  CHECK(verify_graph(*m.graph, diags));
  CHECK(ops_of(*m.graph) == "relu tanh exp neg -> exp neg");
}

TEST_CASE("rewritten nodes carry provenance and the rule set is reusable", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(kRemoveDoubleRelu);
  CompiledRules compiled(rules);
  for (int i = 0; i < 2; ++i) {
    Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")),
                                     call("b", "relu", ref("a")), output({"b"})}));
    DiagnosticEngine diags;
    RewriteResult result = rewrite_graph(*m.graph, compiled, {}, diags);
    REQUIRE(result.created.size() == 1);
    CHECK_THAT((*result.created.begin())->meta().provenance.str(), Catch::StartsWith("double_relu (test.rules:2"));
  }
}

TEST_CASE("conv-bn folding computes new constants and keeps the numbers", "[rewrite][driver]") {
  DiagnosticEngine diags;
  std::optional<Model> model =
      load_model(graft::testing::source_path("examples/models/tiny_cnn/model.json"), diags);
  REQUIRE(model);
  std::unique_ptr<Graph> before = model->graph->clone();
  RuleSet rules = rules_from_text(graft::testing::read_file(
      graft::testing::source_path("examples/rules/fuse.rules")));
  Rewritten r = rewrite(*model->graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  int bns = 0, convs = 0;
  for (const Node* n : model->graph->nodes()) {
    bns += n->is_op("batch_norm") + n->is_op("dropout");
    convs += n->is_op("conv2d");
  }
  CHECK(bns == 0);
  CHECK(convs == 4);
  // The same outputs on random inputs, by the reference interpreter.
  std::vector<eval::Tensor> inputs = {eval::Tensor::random({2, 3, 32, 32}, 11)};
  auto want = eval::run_reference(*before, inputs, diags);
  auto got = eval::run_reference(*model->graph, inputs, diags);
  INFO(diags.render());
  REQUIRE(want);
  REQUIRE(got);
  const eval::Tensor& a = (*want)[0];
  const eval::Tensor& b = (*got)[0];
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) worst = std::max(worst, double(std::fabs(a.f32()[i] - b.f32()[i])));
  CHECK(worst < 1e-5);
}

TEST_CASE("explain_match names the failing check", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(kRemoveDoubleRelu);
  CompiledRules compiled(rules);
  Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")), call("b", "relu", ref("a")),
                                   call("c", "tanh", ref("a")), output({"b", "c"})}));
  DiagnosticEngine diags;
  std::optional<Explanation> why = explain_match(*m.graph, compiled, "double_relu", "b", diags);
  REQUIRE(why);
  CHECK_FALSE(why->matched);
  CHECK_THAT(why->reason, Catch::Contains("where uses(y) == 1 (test.rules:5:9): 2 vs 1"));
  why = explain_match(*m.graph, compiled, "double_relu", "c", diags);
  REQUIRE(why);
  CHECK_THAT(why->reason, Catch::Contains("'c' is tanh, pattern node") && Catch::EndsWith("is not"));
  CHECK_FALSE(explain_match(*m.graph, compiled, "double_relü", "c", diags));
  CHECK_THAT(diags.render(), Catch::Contains("no rule named 'double_relü' (did you mean 'double_relu'?)"));
}

TEST_CASE("explain_match gives the driver's reason to decline a match on a const graph",
          "[rewrite][driver]") {
  // Without `where uses(y) == 1` the pattern matches at b, but 'a' is also read by c.
  RuleSet rules = rules_from_text(R"(
rule double_relu {
  pattern(x) { y = relu(x)
               return relu(y) }
  replacement { return relu(x) }
}
)");
  CompiledRules compiled(rules);
  Model m = model_from_nodes(join({input("x"), call("a", "relu", ref("x")), call("b", "relu", ref("a")),
                                   call("c", "tanh", ref("a")), output({"b", "c"})}));
  const Graph& graph = *m.graph;
  std::string before = format_graph_table(graph);
  DiagnosticEngine diags;
  std::optional<Explanation> why = explain_match(graph, compiled, "double_relu", "b", diags);
  REQUIRE(why);
  CHECK_FALSE(why->matched);
  CHECK(why->reason ==
        "the pattern matches, but the driver declines it: interior value 'a' is also used by "
        "'c', outside the match (return it from the pattern, or add `where uses(y) == 1`)");
  CHECK(format_graph_table(graph) == before);
  CHECK(diags.diagnostics().empty());
}

TEST_CASE("dim symbols bound by where become replacement attributes; symbolic ones block",
          "[rewrite][driver]") {
  // unsqueeze(x, -1) of a 2-d x is a reshape to [B, D, 1]: the sizes come from x's shape.
  RuleSet rules = rules_from_text(R"(
rule unsqueeze_last_to_reshape {
  pattern(x) { return unsqueeze(x, -1) }
  where shape(x) == [B, D]
  replacement { return reshape(x, [B, D, 1]) }
}
)");
  Model m = model_from_nodes(
      join({input("x", "[2, 7]"), call("y", "unsqueeze", ref("x") + ", -1"), output({"y"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  REQUIRE(ops_of(*m.graph) == "reshape -> reshape");
  const Node* reshaped = m.graph->output()->input(0).node;
  CHECK(attr_to_string(reshaped->attrs().at(0)) == "[2, 7, 1]");

  // A symbolic dim has no size to write: no rewrite, and explain says why.
  Model s = model_from_nodes(
      join({input("x", R"(["N", 7])"), call("y", "unsqueeze", ref("x") + ", -1"), output({"y"})}));
  r = rewrite(*s.graph, rules);
  CHECK(r.result.ok);
  CHECK(ops_of(*s.graph) == "unsqueeze -> unsqueeze");
  CompiledRules compiled(rules);
  DiagnosticEngine diags;
  std::optional<Explanation> why =
      explain_match(*s.graph, compiled, "unsqueeze_last_to_reshape", "y", diags);
  REQUIRE(why);
  CHECK_FALSE(why->matched);
  CHECK_THAT(why->reason, Catch::Contains("needs a concrete size for a dim symbol, which is the "
                                          "symbolic dim N"));
}

TEST_CASE("rules that differ only in their where clauses share one binding", "[rewrite][driver]") {
  // Three variants of one pattern with different shape conditions and dim symbols, as a rule
  // library has them: the pattern is bound once per anchor; each rule keeps its own conditions,
  // symbols and replacement.
  RuleSet rules = rules_from_text(R"(
rule wide { pattern(x) { return relu(sigmoid(x)) } where shape(x) == [N, 8]
            replacement { return tanh(x) } }
rule narrow { pattern(v) { return relu(sigmoid(v)) } where shape(v) == [B, 3]
              replacement { return reshape(exp(v), [B, 3]) } }
rule any { pattern(x) { return relu(sigmoid(x)) } where rank(x) == 4
           replacement { return x } }
rule other_op { pattern(x) { return relu(tanh(x)) } replacement { return x } }
rule sum1 { pattern(x, y) { return add(x, y) } where rank(x) == 5 replacement { return x } }
rule sum2 { pattern(x, y) { return add(x, y) } where rank(x) == 6 replacement { return y } }
)");
  CompiledRules compiled(rules);
  CHECK(compiled.binding_leader(0) == 0);
  CHECK(compiled.binding_leader(1) == 0);
  CHECK(compiled.binding_leader(2) == 0);
  CHECK(compiled.shares_binding(0));
  CHECK(compiled.binding_leader(3) == 3);  // another op
  CHECK_FALSE(compiled.shares_binding(3));
  // add is commutative: a failing condition may hold with the operands swapped, so each rule
  // binds on its own.
  CHECK(compiled.binding_leader(5) == 5);
  CHECK_FALSE(compiled.shares_binding(4));

  Model m = model_from_nodes(join({input("x", "[2, 3]"), call("s", "sigmoid", ref("x")),
                                   call("r", "relu", ref("s")), output({"r"})}));
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(ops_of(*m.graph) == "exp reshape -> reshape");
  CHECK(attr_to_string(m.graph->output()->input(0).node->attrs().at(0)) == "[2, 3]");
  CHECK(r.result.stats[0].candidates == 1);
  CHECK(r.result.stats[0].matches == 0);
  CHECK(r.result.stats[1].matches == 1);
  CHECK(r.result.stats[1].applied == 1);
  CHECK(r.result.stats[2].matches == 0);

  // The binding itself failing (an interior value used twice is fine for binding, a missing
  // sigmoid is not) fails every rule of the group.
  Model t = model_from_nodes(join({input("x", "[2, 3]"), call("s", "tanh", ref("x")),
                                   call("r", "relu", ref("s")), output({"r"})}));
  r = rewrite(*t.graph, rules);
  CHECK(r.result.stats[1].matches == 0);
  CHECK(r.result.stats[3].applied == 1);
}

TEST_CASE("folded constants take the names of the constants they replace, unless still read",
          "[rewrite][driver]") {
  RuleSet rules = rules_from_text(
      graft::testing::read_file(graft::testing::source_path("examples/rules/fuse.rules")));
  auto attr = [](const std::string& name, const std::string& target) {
    return R"({"name": ")" + name + R"(", "op": "get_attr", "target": ")" + target + R"("})";
  };
  auto tensor = [](const std::string& name, const std::string& shape, const std::string& data) {
    return "\"" + name + R"(": {"dtype": "float32", "shape": )" + shape + R"(, "data": )" + data +
           "}";
  };
  const std::string tensors =
      join({tensor("conv.weight", "[2, 2, 1, 1]", "[1, 2, 3, 4]"),
            tensor("bn.weight", "[2]", "[1, 2]"), tensor("bn.bias", "[2]", "[0.5, -0.5]"),
            tensor("bn.running_mean", "[2]", "[0, 1]"), tensor("bn.running_var", "[2]", "[1, 4]")});
  std::vector<std::string> nodes = {
      input("x", "[1, 2, 3, 3]"),
      attr("w", "conv.weight"),
      call("conv", "conv2d", ref("x") + ", " + ref("w")),
      attr("mean", "bn.running_mean"),
      attr("var", "bn.running_var"),
      attr("gamma", "bn.weight"),
      attr("beta", "bn.bias"),
      call("bn", "batch_norm",
           join({ref("conv"), ref("mean"), ref("var"), ref("gamma"), ref("beta")}),
           R"("training": false, "momentum": 0.1, "eps": 1e-5)")};
  auto weight_of = [](const Graph& g) -> const Node* {
    for (const Node* n : g.nodes()) {
      if (n->is_op("conv2d")) return n->input_node(1);
    }
    return nullptr;
  };

  SECTION("the batch norm's own constants are replaced") {
    nodes.push_back(output({"bn"}));
    Model m = model_from_nodes(join(nodes), tensors);
    Rewritten r = rewrite(*m.graph, rules);
    INFO(r.diagnostics);
    REQUIRE(r.result.ok);
    CHECK(ops_of(*m.graph) == "conv2d -> conv2d");
    const Node* conv = m.graph->output()->input_node(0);
    CHECK(conv->name() == "bn");
    const Node* w = weight_of(*m.graph);
    REQUIRE(w != nullptr);
    CHECK(w->name() == "bn_weight");
    CHECK(w->target() == "bn.weight");
    REQUIRE(m.graph->constant(*w) != nullptr);
    CHECK(m.graph->constant(*w)->shape() == Shape{2, 2, 1, 1});
    CHECK(m.graph->constants().find("bn.weight") == m.graph->constant(*w));
    const Node* b = conv->input_node(2);
    REQUIRE(b != nullptr);
    CHECK(b->name() == "bn_bias");
    CHECK(b->target() == "bn.bias");
    CHECK(m.graph->find("bn") == conv);
    CHECK(m.graph->find("bn_weight") == w);
  }

  SECTION("a constant another node still reads keeps its name") {
    nodes.push_back(attr("gamma_again", "bn.weight"));
    nodes.push_back(call("kept", "relu", ref("gamma_again")));
    nodes.push_back(output({"bn", "kept"}));
    Model m = model_from_nodes(join(nodes), tensors);
    Rewritten r = rewrite(*m.graph, rules);
    INFO(r.diagnostics);
    REQUIRE(r.result.ok);
    const Node* w = weight_of(*m.graph);
    REQUIRE(w != nullptr);
    CHECK(w->target() == "bn.weight_1");
    CHECK(w->name() == "bn_weight_1");
    CHECK(m.graph->constant(*w)->shape() == Shape{2, 2, 1, 1});
    const Node* again = m.graph->find("gamma_again");
    REQUIRE(again != nullptr);
    CHECK(again->target() == "bn.weight");
    REQUIRE(m.graph->constant(*again) != nullptr);
    CHECK(m.graph->constant(*again)->shape() == Shape{2});
    CHECK(m.graph->constant(*again)->f32()[1] == 2.0f);
  }
}

TEST_CASE("prepared folds give the bytes of unprepared ones as shapes and literals change",
          "[rewrite][driver]") {
  // Blocks whose conv-bn folds alternate between repeating the last block's operand types,
  // eps and bias (the driver reuses the prepared folds) and changing them (it prepares again).
  RuleSet rules = rules_from_text(
      graft::testing::read_file(graft::testing::source_path("examples/rules/fuse.rules")));
  struct Block {
    int out_channels;
    double eps;
    bool bias;
  };
  const Block blocks[] = {{4, 1e-5, false}, {4, 1e-5, false}, {8, 1e-5, false}, {8, 1e-3, false},
                          {8, 1e-3, true},  {4, 1e-3, true},  {4, 1e-3, true},  {4, 1e-5, false}};
  uint32_t seed = 1;
  auto values = [&](int n, bool positive) {
    std::string out;
    for (int i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      double v = static_cast<double>(seed >> 8) / (1 << 24);  // [0, 1)
      out += (out.empty() ? "" : ", ") + std::to_string(positive ? 0.5 + v : 2 * v - 1);
    }
    return "[" + out + "]";
  };
  std::string tensors;
  std::vector<std::string> nodes = {input("x", "[1, 4, 5, 5]")};
  auto constant = [&](const std::string& name, const std::string& shape, int n, bool positive) {
    tensors +=
        (tensors.empty() ? "" : ",\n") + ("\"" + name + R"(": {"dtype": "float32", "shape": )" +
                                          shape + R"(, "data": )" + values(n, positive) + "}");
    nodes.push_back(R"({"name": ")" + name + R"(", "op": "get_attr", "target": ")" + name +
                    R"("})");
    return ::ref(name);
  };
  std::string last = "x";
  int channels = 4;
  for (size_t i = 0; i < std::size(blocks); ++i) {
    const Block& b = blocks[i];
    const std::string p = "b" + std::to_string(i) + "_", c = std::to_string(b.out_channels);
    std::string args = ::ref(last) + ", " +
                       constant(p + "w", "[" + c + ", " + std::to_string(channels) + ", 3, 3]",
                                b.out_channels * channels * 9, false);
    if (b.bias) args += ", " + constant(p + "b", "[" + c + "]", b.out_channels, false);
    nodes.push_back(call(p + "conv", "conv2d", args, R"("padding": [1, 1])"));
    std::string bn_args =
        join({::ref(p + "conv"), constant(p + "mean", "[" + c + "]", b.out_channels, false),
              constant(p + "var", "[" + c + "]", b.out_channels, true),
              constant(p + "gamma", "[" + c + "]", b.out_channels, false),
              constant(p + "beta", "[" + c + "]", b.out_channels, false)});
    nodes.push_back(call(p + "bn", "batch_norm", bn_args,
                         R"("training": false, "momentum": 0.1, "eps": )" + std::to_string(b.eps)));
    last = p + "bn";
    channels = b.out_channels;
  }
  nodes.push_back(output({last}));
  Model prepared = model_from_nodes(join(nodes), tensors);
  Model unprepared = model_from_nodes(join(nodes), tensors);

  CompiledRules compiled(rules);
  auto run = [&](Graph& g, bool prepare) {
    RewriteOptions options;
    options.fold = eval::reference_constant_folder();
    if (!prepare) options.fold.prepare = nullptr;
    options.verify_each_phase = true;
    DiagnosticEngine diags;
    RewriteResult result = rewrite_graph(g, compiled, options, diags);
    INFO(diags.render());
    REQUIRE(result.ok);
    CHECK(result.applied.size() == std::size(blocks));
  };
  run(*prepared.graph, true);
  run(*unprepared.graph, false);
  size_t compared = 0;
  for (const Node* n : prepared.graph->nodes()) {
    if (!n->is(NodeKind::kGetAttr)) continue;
    const Node* twin = unprepared.graph->find(n->name());
    REQUIRE(twin != nullptr);
    const ConstantTensor* a = prepared.graph->constant(*n);
    const ConstantTensor* b = unprepared.graph->constant(*twin);
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    INFO(n->name());
    CHECK(a->shape() == b->shape());
    REQUIRE(a->nbytes == b->nbytes);
    CHECK(std::memcmp(a->data, b->data, a->nbytes) == 0);
    ++compared;
  }
  CHECK(compared == 2 * std::size(blocks));  // each conv's folded weight and bias
}

TEST_CASE("numeric where-comparisons decide as the general evaluator does", "[rewrite][driver]") {
  // Matching compares counts and sizes as plain numbers; explain_match evaluates the same
  // conditions through the general evaluator (to say why one fails). Both must agree.
  const std::string graph =
      join({input("x", "[1, 4, 6, 6]"), input("w", "[8, 4, 3, 3]"),
            call("y", "conv2d", ::ref("x") + ", " + ::ref("w")), call("r", "relu", ::ref("y")),
            call("t", "tanh", ::ref("r")), output({"r", "t"})});
  struct Case {
    const char* condition;
    bool holds;
  };
  const Case cases[] = {
      {"uses(r) == 2", true},           {"uses(r) == 1", false},
      {"uses(r) != 1", true},           {"uses(r) >= 2", true},
      {"uses(r) < 2", false},           {"dim(w, 0) == 8", true},
      {"uses(r) in 1..3", true},        {"rank(w) > 3", true},
      {"rank(w) > 4", false},           {"dim(w, -1) == 3", true},
      {"dim(w, 0) > dim(w, 1)", true},  {"dim(w, 1) <= 3", false},
      {"rank(w) == 4", true},           {"rank(x) != 4", false},
      {"dim(w, 7) == 1", false},        {"dim(w, 7) != 1", false},
      {"dim(x, 2) == dim(x, 3)", true}, {"uses(r) <= 2", true},
      {"dim(w, 0) in 4..8", true},      {"dim(w, 0) in {1, 2}", false},
      {"dim(y, 1) == dim(w, 0)", true},
  };
  for (const Case& c : cases) {
    INFO(c.condition);
    RuleSet rules =
        rules_from_text(std::string("rule r {\n  pattern(x, w) {\n    y = conv2d(x, w)\n") +
                        "    r = relu(y)\n    return r\n  }\n  where " + c.condition +
                        "\n  replacement { return relu6(conv2d(x, w)) }\n}\n");
    CompiledRules compiled(rules);
    Model m = model_from_nodes(graph);
    DiagnosticEngine diags;
    std::optional<Explanation> why = explain_match(*m.graph, compiled, "r", "r", diags);
    REQUIRE(why);
    CHECK(why->matched == c.holds);
    Rewritten r = rewrite(*m.graph, rules);
    REQUIRE(r.result.ok);
    CHECK(r.result.applied.size() == (c.holds ? 1u : 0u));
  }
}
