// Executable behaviour: shape binding, run-time input checks, "not implemented" diagnostics,
// registry coverage, repeated runs, and a property test over random graphs checking results
// against the reference and the memory plan's validity with in-place and reuse on.
#include "runtime/executable.h"

#include <random>

#include <catch2/catch.hpp>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "tests/runtime/runtime_testing.h"
#include "tests/runtime/test_ops.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("every registry op has a runtime kernel and a reference kernel", "[runtime][coverage]") {
  for (const OpSchema& op : OpRegistry::get().ops()) {
    INFO("op " << op.name);
    CHECK(runtime::has_runtime_kernel(op));
    // An op may go without a reference kernel only where its row says why.
    CHECK((eval::has_reference(op) || !op.no_reference.empty()));
  }
}

TEST_CASE("symbolic input dims are bound from options", "[runtime][executable]") {
  Graph g;
  Node* x = g.add_placeholder("x", TensorType{DType::kFloat32, {dim_symbol("N"), 4}});
  Node* y = g.add_call(*OpRegistry::get().find("relu"), {Input::of(x)},
                       Graph::default_attrs(*OpRegistry::get().find("relu")));
  g.set_output({Input::of(y)});
  DiagnosticEngine diags;
  SECTION("unbound symbols are reported") {
    runtime::CompileOptions options;
    options.source_name = "m.json";
    CHECK(runtime::compile(g, options, diags) == nullptr);
    CHECK(diags.render() ==
          "m.json: error: input 'x' has the symbolic dim 'N' in [N, 4]; give its value (--dim "
          "N=N, or --batch for a leading dim) or the input's shape\n");
  }
  SECTION("a symbol value binds the dim") {
    runtime::CompileOptions options;
    options.shapes.symbols["N"] = 3;
    auto exe = runtime::compile(g, options, diags);
    REQUIRE(exe != nullptr);
    CHECK(exe->inputs()[0].shape == Shape{3, 4});
    CHECK(exe->outputs()[0].shape == Shape{3, 4});
  }
  SECTION("an input shape binds the dim and must agree with the declaration") {
    runtime::CompileOptions options;
    options.shapes.inputs["x"] = {5, 4};
    REQUIRE(runtime::compile(g, options, diags) != nullptr);
    options.shapes.inputs["x"] = {5, 3};
    CHECK(runtime::compile(g, options, diags) == nullptr);
    CHECK(diags.render().find("input 'x' is declared [N, 4], but the shape given is [5, 3]") !=
          std::string::npos);
  }
}

TEST_CASE("run rejects inputs of the wrong count or shape", "[runtime][executable]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3});
  b.output({b.call("relu", {in(x)})});
  DiagnosticEngine diags;
  auto exe = runtime::compile(b.graph(), {}, diags);
  REQUIRE(exe != nullptr);
  CHECK_FALSE(exe->run({}, diags).has_value());
  CHECK_FALSE(exe->run({eval::Tensor::zeros(DType::kFloat32, {3, 2})}, diags).has_value());
  CHECK(diags.render().find("input 'x' must be float32[2, 3] (as compiled), got float32[3, 2]") !=
        std::string::npos);
  CHECK(exe->run({eval::Tensor::zeros(DType::kFloat32, {2, 3})}, diags).has_value());
}

TEST_CASE("an op without a kernel is a compile-time diagnostic", "[runtime][executable]") {
  std::string error;
  auto schema = parse_op_signature("frobnicate(Tensor input)", &error);
  REQUIRE(schema);
  schema->infer = [](const InferInputs& in, std::string*) -> std::optional<TensorType> {
    return *in.type(0);
  };
  Graph g;
  Node* x = g.add_placeholder("x", TensorType{DType::kFloat32, {2}});
  Node* y = g.add_call(*schema, {Input::of(x)}, {});
  g.set_output({Input::of(y)});
  DiagnosticEngine diags;
  CHECK(runtime::compile(g, {}, diags) == nullptr);
  CHECK(diags.render() ==
        "error: node 'frobnicate' (frobnicate): not implemented in the runtime: no kernel for "
        "op 'frobnicate'\n");
}

TEST_CASE("training-mode dropout is reported as not implemented unless p is 0",
          "[runtime][executable]") {
  // dropout's default is training=True (torch's F.dropout); only the identity forms run
  // (inference, or p = 0). Neither the runtime nor the reference invents random masks.
  GraphBuilder b;
  Node* x = b.input("x", {2, 3});
  b.output({b.call("dropout", {in(x)}, {{"p", 0.3}})});
  DiagnosticEngine diags;
  CHECK(runtime::compile(b.graph(), {}, diags) == nullptr);
  CHECK(diags.render() ==
        "error: node 'dropout' (dropout): not implemented in the runtime: dropout in training "
        "mode with p > 0 (export in eval mode) (operands: float32[2, 3])\n");
  DiagnosticEngine ref_diags;
  CHECK_FALSE(eval::run_reference(b.graph(), random_inputs(b.graph(), 1), ref_diags));
  CHECK(ref_diags.render().find("dropout in training mode with p > 0 is random") !=
        std::string::npos);

  GraphBuilder identity;
  Node* y = identity.input("x", {2, 3});
  identity.output({identity.call("dropout", {in(y)}, {{"p", 0.0}})});
  std::vector<eval::Tensor> inputs = random_inputs(identity.graph(), 1);
  std::unique_ptr<runtime::Executable> exe = runtime::compile(identity.graph(), {}, diags);
  REQUIRE(exe != nullptr);
  std::optional<std::vector<eval::Tensor>> got = exe->run(inputs, diags);
  std::optional<std::vector<eval::Tensor>> want = eval::run_reference(identity.graph(), inputs, diags);
  INFO(diags.render());
  REQUIRE(got);
  REQUIRE(want);
  CHECK(eval::max_abs_diff((*got)[0], inputs[0]) == 0);
  CHECK(eval::max_abs_diff((*want)[0], inputs[0]) == 0);
}

TEST_CASE("an int64 input that is the output comes back unchanged", "[runtime][executable]") {
  Graph g;
  Node* x = g.add_placeholder("x", TensorType{DType::kInt64, {2}});
  g.set_output({Input::of(x)});
  DiagnosticEngine diags;
  auto exe = runtime::compile(g, {}, diags);
  REQUIRE(exe != nullptr);
  auto out = exe->run({eval::Tensor::from_ints({2}, {-3, int64_t{1} << 60})}, diags);
  REQUIRE(out);
  CHECK((*out)[0].i64()[0] == -3);
  CHECK((*out)[0].i64()[1] == int64_t{1} << 60);
}

TEST_CASE("repeated runs reuse the plan and follow the inputs", "[runtime][executable]") {
  GraphBuilder b;
  Node* x = b.input("x", {1, 8, 6, 6});
  Node* c = b.call("conv2d", {in(x), in(b.constant("w", {8, 8, 3, 3}, 1))}, {{"padding", int64_t{1}}});
  b.output({b.call("relu", {in(c)}), x});  // an output that is the input itself
  DiagnosticEngine diags;
  auto exe = runtime::compile(b.graph(), {}, diags);
  REQUIRE(exe != nullptr);
  auto a = eval::Tensor::random({1, 8, 6, 6}, 1);
  auto bb = eval::Tensor::random({1, 8, 6, 6}, 2);
  auto ra = exe->run({a}, diags);
  auto rb = exe->run({bb}, diags);
  auto ra2 = exe->run({a}, diags);
  REQUIRE((ra && rb && ra2));
  CHECK(eval::max_abs_diff((*ra)[0], (*ra2)[0]) == 0);
  CHECK(eval::max_abs_diff((*ra)[0], (*rb)[0]) > 0);
  CHECK(eval::max_abs_diff((*rb)[1], bb) == 0);
}

namespace {

/// A random DAG of convs, eltwise and binary ops with fan-out, so values have overlapping,
/// uneven lifetimes and many in-place candidates.
std::unique_ptr<Graph> random_graph(uint64_t seed) {
  std::mt19937_64 rng(seed);
  GraphBuilder b;
  std::vector<Node*> pool = {b.input("x", {1, 8, 5, 5})};
  int nodes = std::uniform_int_distribution<int>(3, 14)(rng);
  for (int i = 0; i < nodes; ++i) {
    Node* a = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    Node* c = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    Node* n = nullptr;
    const std::string k = std::to_string(i);
    switch (std::uniform_int_distribution<int>(0, 13)(rng)) {
      case 0:
        n = b.call("conv2d", {in(a), in(b.constant("w" + std::to_string(i), {8, 8, 3, 3}, seed + i, -0.3f, 0.3f))},
                   {{"padding", int64_t{1}}});
        break;
      case 1: n = b.call("relu", {in(a)}); break;
      case 2: n = b.call("add", {in(a), in(c)}); break;
      case 3: n = b.call("mul", {in(a), scalar(0.5)}); break;
      case 4:
        n = b.call("conv2d_post", {in(a), in(b.constant("v" + std::to_string(i), {8, 8, 1, 1}, seed + i)),
                                   Input::none(), in(c)},
                   {{"post_activation", std::string("relu")}});
        break;
      case 5: n = b.call("softmax", {in(a)}, {{"dim", int64_t{1}}}); break;
      case 6:
        n = b.call("batch_norm", {in(a), in(b.constant("m" + k, {8}, seed + i)),
                                  in(b.constant("s" + k, {8}, seed + i, 0.5f, 2.0f))});
        break;
      case 7:
        n = b.call("layer_norm", {in(a)}, {{"normalized_shape", std::vector<int64_t>{5}}});
        break;
      case 8: n = b.call("clone", {in(a)}); break;  // an alias: one buffer, two names
      case 9: n = b.call("sub", {in(a), in(c)}); break;
      case 10:
        n = b.call("max_pool2d", {in(a)},
                   {{"kernel_size", int64_t{3}}, {"stride", int64_t{1}}, {"padding", int64_t{1}}});
        break;
      case 11: n = b.call("mul", {in(a), in(b.constant("g" + k, {8, 1, 1}, seed + i))}); break;
      case 12: {
        // A plain region in the middle: transpose there and back.
        Node* t = b.call("transpose", {in(a)}, {{"dim0", int64_t{1}}, {"dim1", int64_t{3}}});
        n = b.call("transpose", {in(b.call("relu", {in(t)}))}, {{"dim0", int64_t{1}}, {"dim1", int64_t{3}}});
        break;
      }
      default: n = b.call("tanh", {in(a)}); break;
    }
    pool.push_back(n);
  }
  // Output the last node and one random earlier one (keeps some values live to the end).
  b.output({pool.back(), pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)]});
  return b.take();
}

}  // namespace

TEST_CASE("random graphs match the reference with in-place and reuse, and plans are valid",
          "[runtime][memory_plan][inplace]") {
  int in_place_steps = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::unique_ptr<Graph> g = random_graph(seed);
    std::unique_ptr<runtime::Executable> exe;
    INFO("seed " << seed);
    REQUIRE(check_against_reference(*g, random_inputs(*g, seed), {}, 1e-4, 1e-4, &exe) == "");
    CHECK(runtime::check_memory_plan(exe->buffer_requests(), exe->memory_plan()) == "");
    for (const runtime::StepInfo& s : exe->steps()) in_place_steps += s.in_place;
  }
  CHECK(in_place_steps > 20);  // the property is exercised, not vacuous
}

TEST_CASE("a chain of ops reuses activation memory", "[runtime][memory_plan]") {
  GraphBuilder b;
  Node* v = b.input("x", {1, 16, 16, 16});
  for (int i = 0; i < 8; ++i) {
    v = b.call("conv2d", {in(v), in(b.constant("w" + std::to_string(i), {16, 16, 3, 3}, i))},
               {{"padding", int64_t{1}}});
  }
  b.output({v});
  DiagnosticEngine diags;
  auto exe = runtime::compile(b.graph(), {}, diags);
  REQUIRE(exe != nullptr);
  const size_t one = 16 * 16 * 16 * 4;
  CHECK(exe->memory_plan().naive_bytes >= 8 * one);
  CHECK(exe->peak_activation_bytes() <= 2 * one);  // ping-pong between two buffers
}

TEST_CASE("tensors of rank above oneDNN's limit are a diagnostic, not a crash",
          "[runtime][executable]") {
  GraphBuilder b;
  Node* x = b.input("x", Shape(13, 1));
  b.output({b.call("relu", {in(x)})});
  DiagnosticEngine diags;
  CHECK(runtime::compile(b.graph(), {}, diags) == nullptr);
  CHECK(diags.render().find("rank 13") != std::string::npos);
}

TEST_CASE("empty tensors run and stay empty", "[runtime][executable]") {
  GraphBuilder b;
  Node* x = b.input("x", {0, 5});
  Node* y = b.call("relu", {in(x)});
  Node* z = b.call("add", {in(y), in(b.constant("c", {5}, 1))});
  b.output({z});
  CHECK(check_against_reference(b.graph(), random_inputs(b.graph(), 1)) == "");
}

TEST_CASE("a fused op's residual must have the result's shape", "[runtime][fused]") {
  GraphBuilder b;
  Node* x = b.input("x", {1, 4, 5, 5});
  Node* r = b.input("r", {1, 4, 1, 1});
  b.output({b.call("conv2d_post", {in(x), in(b.constant("w", {4, 4, 1, 1}, 1)), Input::none(), in(r)})});
  DiagnosticEngine diags;
  CHECK(runtime::compile(b.graph(), {}, diags) == nullptr);
  CHECK(diags.render() ==
        "error: node 'conv2d_post' (conv2d_post): residual has shape [1, 4, 1, 1], expected "
        "[1, 4, 5, 5] (the result's shape)\n");
}
