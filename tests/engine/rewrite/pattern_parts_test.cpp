// Patterns whose outputs share no input (`return relu(a), sigmoid(b)`, torch.fx's patterns of
// disconnected components): each part is matched on its own and the parts are combined in
// graph order, skipping nodes an earlier match of the rule took and combinations the driver
// would decline (a cycle, an interior value used outside); replacements stay correctly placed,
// and a budget bounds the combinations a rule tries per pass.
#include <catch2/catch.hpp>

#include "engine/ir/verifier.h"
#include "eval/constant_folder.h"
#include "tests/engine/rewrite/rewrite_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

const char* const kPair = R"(
rule pair {
  pattern(a, b) {
    r = relu(a)
    s = sigmoid(b)
    return r, s
  }
  replacement { return tanh(a), exp(b) }
}
phase p once { pair }
)";

struct Run {
  RewriteResult result;
  std::string diagnostics;
  std::vector<std::string> matched;  // per applied rewrite: the matched nodes' names, joined
};

Run run(Graph& graph, const RuleSet& rules, uint64_t max_combinations = 0) {
  CompiledRules compiled(rules);
  RewriteOptions options;
  options.fold = eval::reference_constant_folder();
  options.verify_each_phase = true;
  options.max_combinations = max_combinations;
  Run out;
  options.on_applied = [&](const AppliedRewrite&, const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : " ") + n;
    out.matched.push_back(text);
  };
  DiagnosticEngine diags;
  out.result = rewrite_graph(graph, compiled, options, diags);
  out.diagnostics = diags.render();
  return out;
}

}  // namespace

TEST_CASE("a pattern whose outputs share no input rewrites both parts", "[rewrite][parts]") {
  RuleSet rules = rules_from_text(kPair);
  Model m = model_from_nodes(join({input("x"), input("y"), call("r", "relu", ref("x")),
                                   call("s", "sigmoid", ref("y")), output({"r", "s"})}));
  Run r = run(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.matched == std::vector<std::string>{"r s"});
  CHECK(ops_of(*m.graph) == "tanh exp -> tanh exp");
}

TEST_CASE("parts combine in graph order, each node in one match of a pass", "[rewrite][parts]") {
  // torch.fx's order: every relu in graph order takes the first sigmoid no earlier match took.
  RuleSet rules = rules_from_text(kPair);
  Model m = model_from_nodes(join(
      {input("x"), call("s1", "sigmoid", ref("x")), call("r1", "relu", ref("x")),
       call("r2", "relu", ref("x")), call("s2", "sigmoid", ref("x")),
       call("r3", "relu", ref("x")), call("s3", "sigmoid", ref("x")),
       output({"s1", "r1", "r2", "s2", "r3", "s3"})}));
  Run r = run(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.matched == std::vector<std::string>{"r1 s1", "r2 s2", "r3 s3"});
  CHECK(r.result.stats[0].applied == 3);
  DiagnosticEngine lint;
  CHECK(verify_graph(*m.graph, lint));
}

TEST_CASE("two parts never bind one node", "[rewrite][parts]") {
  RuleSet rules = rules_from_text(R"(
rule two_relus {
  pattern(a, b) { return relu(a), relu(b) }
  replacement { return tanh(a), tanh(b) }
}
)");
  Model one = model_from_nodes(join({input("x"), call("r", "relu", ref("x")), output({"r"})}));
  Run r = run(*one.graph, rules);
  CHECK(r.result.stats[0].matches == 0);
  CHECK(ops_of(*one.graph) == "relu -> relu");
  // Three relus: one pair, and the third is left (no fourth to pair it with).
  Model three = model_from_nodes(join({input("x"), call("r1", "relu", ref("x")),
                                       call("r2", "relu", ref("x")), call("r3", "relu", ref("x")),
                                       output({"r1", "r2", "r3"})}));
  r = run(*three.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.matched == std::vector<std::string>{"r1 r2"});
  CHECK(ops_of(*three.graph) == "tanh tanh relu -> tanh tanh relu");
}

TEST_CASE("a part whose input is computed from another part's output is passed over",
          "[rewrite][parts]") {
  // sigmoid(t) reads tanh(r), so pairing r with s would make the replacement read a value
  // computed from the one it replaces (torch.fx's validate_partition rejects it too): r pairs
  // with the later, independent s2 instead.
  RuleSet rules = rules_from_text(kPair);
  Model m = model_from_nodes(join(
      {input("x"), input("y"), call("r", "relu", ref("x")), call("t", "tanh", ref("r")),
       call("s", "sigmoid", ref("t")), call("s2", "sigmoid", ref("y")), output({"s", "s2"})}));
  Run r = run(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.matched == std::vector<std::string>{"r s2"});
  DiagnosticEngine lint;
  CHECK(verify_graph(*m.graph, lint));

  // With no other sigmoid there is no combination to apply.
  Model alone = model_from_nodes(join({input("x"), call("r", "relu", ref("x")),
                                       call("t", "tanh", ref("r")), call("s", "sigmoid", ref("t")),
                                       output({"s"})}));
  r = run(*alone.graph, rules);
  CHECK(r.result.ok);
  CHECK(r.result.stats[0].matches == 0);
  CHECK(ops_of(*alone.graph) == "relu tanh sigmoid -> sigmoid");
  DiagnosticEngine diags;
  std::optional<Explanation> why =
      explain_match(*alone.graph, CompiledRules(rules), "pair", "r", diags);
  REQUIRE(why);
  CHECK_FALSE(why->matched);
  CHECK(why->reason ==
        "the driver declines this combination of the pattern's parts: the replacement reads "
        "'t', which is computed from 'r' that it replaces: rewriting would create a cycle");
}

TEST_CASE("each replacement op of a pattern of parts goes after its own inputs",
          "[rewrite][parts]") {
  // r's user u comes before y, the input of the second part: a single insertion point after
  // every input would follow u. Each op goes after its own inputs instead.
  RuleSet rules = rules_from_text(kPair);
  Model m = model_from_nodes(join({input("x"), call("r", "relu", ref("x")),
                                   call("u", "neg", ref("r")), call("y", "exp", ref("x")),
                                   call("s", "sigmoid", ref("y")), output({"u", "s"})}));
  Run r = run(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.matched == std::vector<std::string>{"r s"});
  CHECK(ops_of(*m.graph) == "tanh neg exp exp -> neg exp");
  DiagnosticEngine lint;
  CHECK(verify_graph(*m.graph, lint));
}

TEST_CASE("a result that cannot come before its users declines the match and the phase ends",
          "[rewrite][parts]") {
  // r's replacement reads y, which comes after r's user u: no place fits, so the match is
  // declined. The fixpoint ends there rather than finding the same match every pass.
  RuleSet rules = rules_from_text(R"(
rule mix {
  pattern(a, b) { return relu(a), sigmoid(b) }
  replacement { return a + b, exp(b) }
}
phase p fixpoint { mix }
)");
  Model m = model_from_nodes(join({input("x"), call("r", "relu", ref("x")),
                                   call("u", "neg", ref("r")), call("y", "exp", ref("x")),
                                   call("s", "sigmoid", ref("y")), output({"u", "s"})}));
  Run r = run(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.result.ok);
  CHECK(r.diagnostics.empty());
  CHECK(r.result.stats[0].matches == 1);
  CHECK(r.result.stats[0].applied == 0);
  CHECK(ops_of(*m.graph) == "relu neg exp sigmoid -> neg sigmoid");
}

TEST_CASE("where conditions tie the parts together", "[rewrite][parts]") {
  RuleSet rules = rules_from_text(R"(
rule same_shape {
  pattern(a, b) { return relu(a), sigmoid(b) }
  where shape(a) == shape(b)
  replacement { return tanh(a), exp(b) }
}
)");
  Model m = model_from_nodes(join({input("x", "[2, 3]"), input("y", "[4]"), input("z", "[2, 3]"),
                                   call("r", "relu", ref("x")), call("s1", "sigmoid", ref("y")),
                                   call("s2", "sigmoid", ref("z")), output({"r", "s1", "s2"})}));
  Run r = run(*m.graph, rules);
  INFO(r.diagnostics);
  CHECK(r.matched == std::vector<std::string>{"r s2"});
}

TEST_CASE("a rule runs out of combinations with a warning, not exponential time",
          "[rewrite][parts]") {
  // Three parts whose condition, reading two of them, never holds: each anchor tries every
  // pair of the other two parts. With a budget of 10 combinations the rule stops, says so
  // once, and the run goes on.
  RuleSet rules = rules_from_text(R"(
rule never {
  pattern(a, b, c) { return relu(a), sigmoid(b), tanh(c) }
  where shape(b) != shape(c)
  replacement { return relu(a), sigmoid(b), tanh(c) }
}
)");
  std::vector<std::string> nodes = {input("x")};
  std::vector<std::string> outs;
  for (int i = 0; i < 6; ++i) {
    for (const char* op : {"relu", "sigmoid", "tanh"}) {
      std::string name = std::string(op) + std::to_string(i);
      nodes.push_back(call(name, op, ref("x")));
      outs.push_back(name);
    }
  }
  nodes.push_back(output(outs));
  Model m = model_from_nodes(join(nodes));
  Run r = run(*m.graph, rules, /*max_combinations=*/10);
  CHECK(r.result.ok);
  CHECK(r.result.stats[0].matches == 0);
  CHECK(r.result.stats[0].candidates == 1);  // the first anchor spent the budget
  CHECK(r.diagnostics ==
        "test.rules:2: warning: rule 'never' skipped for the rest of a pass after 10 "
        "combinations of its pattern's 3 parts, which share no input (a condition on one part "
        "rules out its node for every combination at once; one across parts is checked per "
        "combination)\n");
  // The default bound leaves every anchor its 6 + 6 x 6 combinations.
  r = run(*m.graph, rules);
  CHECK(r.diagnostics.empty());
  CHECK(r.result.stats[0].candidates == 6);
}

TEST_CASE("explain names the part no node matches", "[rewrite][parts]") {
  RuleSet rules = rules_from_text(kPair);
  Model m = model_from_nodes(join({input("x"), call("r", "relu", ref("x")), output({"r"})}));
  DiagnosticEngine diags;
  std::optional<Explanation> why = explain_match(*m.graph, CompiledRules(rules), "pair", "r", diags);
  REQUIRE(why);
  CHECK_FALSE(why->matched);
  CHECK_THAT(why->reason, Catch::StartsWith("no node matches pattern node 's' (test.rules:5:9)") &&
                              Catch::EndsWith("which shares no input with the pattern's other part"));
}
