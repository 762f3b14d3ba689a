// Folded constants in the rewrite driver: constant sharing (engine/rewrite/shared_constants.h),
// and undoing a failed match that materialised one. Folds that give
// identical values read one constant; folds that differ in a byte or in type do not.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "engine/ir/verifier.h"
#include "tests/engine/rewrite/rewrite_testing.h"
#include "tests/testing/test_paths.h"

using namespace graft;
using namespace graft::testing;

namespace {

std::string attr(const std::string& name, const std::string& target) {
  return R"({"name": ")" + name + R"(", "op": "get_attr", "target": ")" + target + R"("})";
}

std::string tensor(const std::string& name, const std::string& shape, const std::string& data) {
  return "\"" + name + R"(": {"dtype": "float32", "shape": )" + shape + R"(, "data": )" + data +
         "}";
}

/// conv -> batch_norm block `i` on `from`, its batch norm reading `gamma`.
std::vector<std::string> block(int i, const std::string& from, const std::string& gamma) {
  const std::string k = std::to_string(i);
  return {attr("w" + k, "conv.weight"), call("conv" + k, "conv2d", testing::ref(from) + ", " + testing::ref("w" + k)),
          attr("mean" + k, "bn.running_mean"), attr("var" + k, "bn.running_var"),
          attr("gamma" + k, gamma), attr("beta" + k, "bn.bias"),
          call("bn" + k, "batch_norm",
               join({testing::ref("conv" + k), testing::ref("mean" + k), testing::ref("var" + k), testing::ref("gamma" + k),
                     testing::ref("beta" + k)}),
               R"("training": false, "momentum": 0.1, "eps": 1e-5)")};
}

}  // namespace

TEST_CASE("identical folds share one constant, different ones do not", "[rewrite][driver]") {
  RuleSet rules = rules_from_text(
      graft::testing::read_file(graft::testing::source_path("examples/rules/fuse.rules")));
  const std::string tensors = join(
      {tensor("conv.weight", "[2, 2, 1, 1]", "[1, 2, 3, 4]"), tensor("bn.weight", "[2]", "[1, 2]"),
       tensor("bn.weight_other", "[2]", "[1, 2.5]"), tensor("bn.bias", "[2]", "[0.5, -0.5]"),
       tensor("bn.running_mean", "[2]", "[0, 1]"), tensor("bn.running_var", "[2]", "[1, 4]")});
  // Blocks 0, 1 and 3 fold to the same weight and bias; block 2's gamma differs.
  std::vector<std::string> nodes = {input("x", "[1, 2, 3, 3]")};
  const char* gammas[] = {"bn.weight", "bn.weight", "bn.weight_other", "bn.weight"};
  std::string prev = "x";
  for (int i = 0; i < 4; ++i) {
    for (std::string& n : block(i, prev, gammas[i])) nodes.push_back(std::move(n));
    prev = "bn" + std::to_string(i);
  }
  nodes.push_back(output({prev}));
  Model m = model_from_nodes(join(nodes), tensors);
  Rewritten r = rewrite(*m.graph, rules);
  INFO(r.diagnostics);
  REQUIRE(r.result.ok);
  REQUIRE(ops_of(*m.graph) == "conv2d conv2d conv2d conv2d -> conv2d");

  std::vector<const Node*> convs;
  for (const Node* n : m.graph->nodes()) {
    if (n->is_op("conv2d")) convs.push_back(n);
  }
  REQUIRE(convs.size() == 4);
  auto weight = [&](int i) { return convs[static_cast<size_t>(i)]->input_node(1); };
  auto bias = [&](int i) { return convs[static_cast<size_t>(i)]->input_node(2); };
  // One constant for blocks 0, 1 and 3, read by get_attr nodes of their own.
  CHECK(weight(1)->target() == weight(0)->target());
  CHECK(weight(3)->target() == weight(0)->target());
  CHECK(bias(1)->target() == bias(0)->target());
  CHECK(bias(3)->target() == bias(0)->target());
  CHECK(m.graph->constant(*weight(1)) == m.graph->constant(*weight(0)));
  std::set<std::string> names;
  for (int i = 0; i < 4; ++i) names.insert(weight(i)->name());
  CHECK(names.size() == 4);
  CHECK(m.graph->constants().readers(weight(0)->target()) == 3);
  // Block 2's weight differs in its second output channel.
  CHECK(weight(2)->target() != weight(0)->target());
  const ConstantTensor* w0 = m.graph->constant(*weight(0));
  const ConstantTensor* w2 = m.graph->constant(*weight(2));
  REQUIRE(w0 != nullptr);
  REQUIRE(w2 != nullptr);
  CHECK(w0->f32()[0] == w2->f32()[0]);
  CHECK(w0->f32()[2] != w2->f32()[2]);
}

TEST_CASE("a replacement op that rejects a folded operand leaves the graph as it was",
          "[rewrite][driver]") {
  // The folded weight's get_attr is made after the conv2d that reads it; undoing the match
  // must erase both (a fuzz_rules input left the get_attr behind, unnamed).
  RuleSet rules = rules_from_text(R"(
rule bad_fold {
  pattern(x, w) { return conv2d(x, w) }
  where const(w)
  replacement { return conv2d(x, fold(reshape(w, [-1]))) }
}
)");
  const std::string tensors = tensor("w", "[2, 2, 1, 1]", "[1, 2, 3, 4]");
  Model m = model_from_nodes(join({input("x", "[1, 2, 3, 3]"), attr("w", "w"),
                                   call("conv", "conv2d", testing::ref("x") + ", " +
                                                              testing::ref("w")),
                                   output({"conv"})}),
                             tensors);
  size_t before = m.graph->size();
  Rewritten r = rewrite(*m.graph, rules);
  CHECK_FALSE(r.result.ok);
  CHECK_THAT(r.diagnostics, Catch::Contains("conv2d rejects its inputs"));
  DiagnosticEngine diags;
  CHECK(verify_graph(*m.graph, diags));
  INFO(diags.render());
  CHECK(m.graph->size() == before);
}
