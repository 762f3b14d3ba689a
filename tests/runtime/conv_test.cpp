// Convolution kernels vs the reference: random shapes with odd sizes, groups and depthwise,
// strides, padding, dilation, with and without bias, blocked and plain layouts; and the fused
// conv2d_post against the same computation unfused.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "engine/ops/op_registry.h"
#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

struct ConvCase {
  int64_t n, c, h, w, o, k, stride, pad, dilation, groups;
  bool bias;
};

std::unique_ptr<Graph> conv_graph(const ConvCase& p, uint64_t seed) {
  GraphBuilder b;
  Node* x = b.input("x", {p.n, p.c, p.h, p.w});
  Node* w = b.constant("w", {p.o, p.c / p.groups, p.k, p.k}, seed);
  Node* bias = p.bias ? b.constant("b", {p.o}, seed + 1) : nullptr;
  Node* y = b.call("conv2d", {in(x), in(w), bias ? in(bias) : Input::none()},
                   {{"stride", int64_t{p.stride}}, {"padding", int64_t{p.pad}},
                    {"dilation", int64_t{p.dilation}}, {"groups", int64_t{p.groups}}});
  b.output({y});
  return b.take();
}

}  // namespace

TEST_CASE("conv2d matches the reference over strides, padding, dilation and groups",
          "[runtime][conv]") {
  auto p = GENERATE(values<ConvCase>({
      {1, 3, 8, 8, 4, 3, 1, 1, 1, 1, true},      // first-layer style, 3 input channels
      {2, 16, 7, 9, 32, 3, 2, 1, 1, 1, true},    // odd sizes, stride 2
      {1, 8, 5, 5, 8, 1, 1, 0, 1, 1, false},     // 1x1, no bias
      {1, 32, 6, 6, 32, 3, 1, 1, 1, 32, true},   // depthwise
      {2, 12, 9, 7, 18, 3, 2, 2, 2, 3, true},    // groups, dilation
      {1, 17, 11, 13, 5, 5, 3, 2, 1, 1, true},   // odd channels, 5x5 stride 3
      {3, 24, 4, 4, 48, 3, 1, 0, 1, 2, false},   // batch 3, no padding
  }));
  std::unique_ptr<Graph> g = conv_graph(p, 7);
  INFO("case c=" << p.c << " o=" << p.o << " k=" << p.k << " groups=" << p.groups);
  CHECK(check_all_modes(*g, random_inputs(*g, 11)) == "");
}

TEST_CASE("conv2d chooses a blocked layout and keeps it through relu", "[runtime][conv][layout]") {
  GraphBuilder b;
  Node* x = b.input("x", {1, 16, 8, 8});
  Node* w1 = b.constant("w1", {32, 16, 3, 3}, 1);
  Node* c1 = b.call("conv2d", {in(x), in(w1)}, {{"padding", int64_t{1}}});
  Node* r1 = b.call("relu", {in(c1)});
  Node* w2 = b.constant("w2", {32, 32, 3, 3}, 2);
  Node* c2 = b.call("conv2d", {in(r1), in(w2)}, {{"padding", int64_t{1}}});
  b.output({c2});
  std::unique_ptr<runtime::Executable> exe;
  Graph& g = b.graph();
  REQUIRE(check_against_reference(g, random_inputs(g, 3), {}, 1e-4, 1e-4, &exe) == "");
  // Between the two convolutions nothing is reordered: the only reorders are the model input
  // (if the first conv wants a blocked source) and the output copy.
  int inner_reorders = 0;
  for (const runtime::StepInfo& s : exe->steps()) {
    if (s.op == "reorder" && s.name.find(".output") == std::string::npos && s.name != "conv2d.reorder") {
      ++inner_reorders;
    }
  }
  INFO(exe->dump());
  CHECK(inner_reorders == 0);
  const runtime::StepInfo* relu = nullptr;
  for (const runtime::StepInfo& s : exe->steps()) {
    if (s.op == "relu") relu = &s;
  }
  REQUIRE(relu != nullptr);
  CHECK(relu->layout != "abcd");  // blocked, as the convolution left it
  CHECK(relu->in_place);
}

TEST_CASE("conv2d_post equals conv, activation, residual add and post-activation unfused",
          "[runtime][conv][fused]") {
  struct PostCase {
    const char* act;
    double alpha, beta;
    bool residual;
    const char* post;
  };
  auto p = GENERATE(values<PostCase>({
      {"relu", 0, 0, false, "none"},
      {"none", 0, 0, true, "relu"},       // ResNet: conv, bn folded, + identity, relu
      {"relu6", 0, 0, false, "none"},     // MobileNetV2
      {"hardswish", 0, 0, false, "none"}, // MobileNetV3
      {"silu", 0, 0, true, "none"},
      {"gelu", 0, 0, false, "none"},
      {"gelu_tanh", 0, 0, false, "none"},
      {"sigmoid", 0, 0, false, "none"},
      {"tanh", 0, 0, false, "none"},
      {"leaky_relu", 0.1, 0, true, "relu"},
      {"hardtanh", -0.5, 0.5, false, "none"},
      {"clamp", -0.25, 2, false, "none"},
      {"elu", 1.5, 0, false, "none"},
      {"hardsigmoid", 0, 0, false, "none"},
      {"none", 0, 0, true, "none"},
  }));
  GraphBuilder b;
  Node* x = b.input("x", {2, 8, 7, 7});
  Node* r = b.input("r", {2, 16, 7, 7});
  Node* w = b.constant("w", {16, 8, 3, 3}, 5);
  Node* bias = b.constant("b", {16}, 6);
  Node* y = b.call("conv2d_post",
                   {in(x), in(w), in(bias), p.residual ? in(r) : Input::none()},
                   {{"padding", int64_t{1}}, {"activation", std::string(p.act)},
                    {"alpha", p.alpha}, {"beta", p.beta}, {"post_activation", std::string(p.post)}});
  Node* keep = b.call("relu", {in(r)});  // r stays live, so the residual cannot be overwritten
  b.output({y, keep});
  INFO("activation " << p.act << " residual " << p.residual << " post " << p.post);
  CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 9), 1e-4, 2e-4) == "");
}

TEST_CASE("conv2d_post writes into a dying residual in place", "[runtime][conv][fused][inplace]") {
  GraphBuilder b;
  Node* x = b.input("x", {1, 16, 6, 6});
  Node* w1 = b.constant("w1", {16, 16, 3, 3}, 1);
  Node* w2 = b.constant("w2", {16, 16, 3, 3}, 2);
  Node* c1 = b.call("conv2d", {in(x), in(w1)}, {{"padding", int64_t{1}}});
  // c1 dies at the fused conv, which adds its result onto c1's bytes.
  Node* y = b.call("conv2d_post", {in(x), in(w2), Input::none(), in(c1)},
                   {{"padding", int64_t{1}}, {"post_activation", std::string("relu")}});
  b.output({y});
  std::unique_ptr<runtime::Executable> exe;
  REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 4), {}, 1e-4, 1e-4, &exe) == "");
  bool fused_in_place = false;
  for (const runtime::StepInfo& s : exe->steps()) {
    if (s.op == "conv2d_post") fused_in_place = s.in_place;
    CHECK(s.name.find(".residual") == std::string::npos);  // no prefill copy
  }
  INFO(exe->dump());
  CHECK(fused_in_place);
}

TEST_CASE("conv2d_post rejects an unknown activation with a diagnostic", "[runtime][conv][fused]") {
  GraphBuilder b;
  Node* x = b.input("x", {1, 4, 5, 5});
  Node* w = b.constant("w", {4, 4, 1, 1}, 1);
  // Loaders and rules reject the name (AttrSpec::choices); a graph built through the C++ API
  // without coerce_attr still reaches the runtime.
  const OpSchema& schema = *OpRegistry::get().find("conv2d_post");
  std::vector<AttrValue> attrs = Graph::default_attrs(schema);
  attrs[static_cast<size_t>(schema.attr_index("activation"))] = std::string("rleu");
  Node* y = b.graph().add_call(schema, {in(x), in(w), Input::none(), Input::none()}, attrs);
  b.output({y});
  DiagnosticEngine diags;
  CHECK(runtime::compile(b.graph(), {}, diags) == nullptr);
  CHECK(diags.render().find("unknown activation 'rleu'") != std::string::npos);
}

TEST_CASE("3x3 stride-1 convolutions match the reference with and without Winograd",
          "[runtime][conv][winograd]") {
  for (bool winograd : {true, false}) {
    for (const char* post : {"none", "relu"}) {
      GraphBuilder b;
      Node* x = b.input("x", {2, 32, 14, 14});
      Node* r = b.input("r", {2, 64, 14, 14});
      Node* y = b.call("conv2d_post",
                       {in(x), in(b.constant("w", {64, 32, 3, 3}, 1)), in(b.constant("b", {64}, 2)),
                        in(r)},
                       {{"padding", int64_t{1}}, {"activation", std::string("relu")},
                        {"post_activation", std::string(post)}});
      y = b.call("conv2d", {in(y), in(b.constant("w2", {32, 64, 3, 3}, 3))}, {{"padding", int64_t{1}}});
      b.output({y});
      runtime::CompileOptions options;
      options.winograd = winograd;
      std::unique_ptr<runtime::Executable> exe;
      INFO("winograd " << winograd << " post " << post);
      // Winograd's input/output transforms amplify rounding: the two chained layers here
      // (reductions over 288 and 576 products) differ from the reference by up to 3e-4 with
      // the blocking oneDNN picks for one thread, against 1e-4 for the direct algorithm.
      const double atol = winograd ? 1e-3 : 2e-4;
      CHECK(check_against_reference(b.graph(), random_inputs(b.graph(), 5), options, 1e-4, atol,
                                    &exe) == "");
      bool used = false;
      for (const runtime::StepInfo& s : exe->steps()) used |= s.impl.find("wino") != std::string::npos;
      if (!winograd) CHECK_FALSE(used);
      if (winograd && !used) WARN("oneDNN has no Winograd kernel on this CPU; the direct path ran");
    }
  }
}

TEST_CASE("a network with Winograd layers keeps one blocked layout except around strided convolutions",
          "[runtime][conv][layout][winograd]") {
  // ResNet in small: a strided stem, a pool, a block of two Winograd convolutions whose residual
  // is the pool's result, then a bottleneck-style strided block (3x3 stride 2, then 1x1 with the
  // 1x1 downsampling branch as residual) and a Winograd layer.
  GraphBuilder b;
  Node* x = b.input("x", {1, 3, 20, 20});
  uint64_t seed = 0;
  auto conv = [&](Node* input, const char* w, Shape shape, int64_t stride, Node* residual,
                  std::map<std::string, AttrValue> attrs) {
    attrs["stride"] = stride;
    attrs["padding"] = shape[2] / 2;
    return b.call("conv2d_post", {in(input), in(b.constant(w, shape, ++seed)), Input::none(),
                                  residual ? in(residual) : Input::none()},
                  attrs);
  };
  const std::map<std::string, AttrValue> relu{{"activation", std::string("relu")}};
  const std::map<std::string, AttrValue> post_relu{{"post_activation", std::string("relu")}};
  Node* stem = conv(x, "stem", {32, 3, 3, 3}, 2, nullptr, relu);
  Node* pool = b.call("max_pool2d", {in(stem)},
                      {{"kernel_size", int64_t{3}}, {"stride", int64_t{1}}, {"padding", int64_t{1}}});
  Node* l1a = conv(pool, "l1a", {32, 32, 3, 3}, 1, nullptr, relu);
  Node* l1b = conv(l1a, "l1b", {32, 32, 3, 3}, 1, pool, post_relu);
  Node* down = conv(l1b, "down", {64, 32, 1, 1}, 2, nullptr, {});
  Node* c1 = conv(l1b, "c1", {64, 32, 3, 3}, 2, nullptr, relu);
  Node* e = conv(c1, "e", {64, 64, 1, 1}, 1, down, post_relu);
  Node* c2 = conv(e, "c2", {64, 64, 3, 3}, 1, nullptr, relu);
  Node* dw = b.call("conv2d", {in(c2), in(b.constant("dw", {64, 1, 3, 3}, 5))},
                    {{"padding", int64_t{1}}, {"groups", int64_t{64}}});
  Node* head = b.call("adaptive_avg_pool2d", {in(dw)}, {{"output_size", std::vector<int64_t>{1, 1}}});
  b.output({head});
  std::unique_ptr<runtime::Executable> exe;
  REQUIRE(check_against_reference(b.graph(), random_inputs(b.graph(), 3), {}, 1e-4, 2e-4, &exe) == "");
  INFO(exe->dump());
  std::map<std::string, const runtime::StepInfo*> steps;
  for (const runtime::StepInfo& s : exe->steps()) steps[s.name] = &s;
  for (const Node* n : {stem, pool, l1a, l1b, down, c1, e, c2, dw, head}) {
    INFO(n->name());
    REQUIRE(steps.count(n->name()) == 1);
  }
  if (steps[c2->name()]->impl.find("wino") == std::string::npos) {
    WARN("oneDNN has no Winograd kernel on this CPU; layouts were chosen per layer");
    return;
  }
  // The graph-wide layout: the Winograd layers', and of everything else but the strided
  // convolutions and the pool between them (e is handed c1's nhwc result and asks for aBcd16b
  // rather than adopting nhwc, which would spread into its residual and beyond).
  for (const Node* n : {l1a, l1b, down, e, c2, dw, head}) {
    INFO(n->name());
    CHECK(steps[n->name()]->layout == "aBcd16b");
  }
  // The strided 3x3 convolutions run brgconv in nhwc (oneDNN has it wherever it has Winograd:
  // avx512_core), and the pool takes the layout it is given.
  for (const Node* n : {stem, c1}) {
    INFO(n->name());
    CHECK(steps[n->name()]->layout == "acdb");
    CHECK(steps[n->name()]->impl.find("brg") != std::string::npos);
  }
  CHECK(steps[pool->name()]->layout == "acdb");
  // One reorder per border: into the stem (the model input), the pool's result into the block
  // (shared by l1a and l1b's residual), the block's result into c1, c1's into e. Both residual
  // sums add in place: l1b onto the pool's reordered copy, e onto down's result.
  std::set<std::string> reorders;
  for (const runtime::StepInfo& s : exe->steps()) {
    if (s.op == "reorder" && s.name.find(".output") == std::string::npos) reorders.insert(s.name);
  }
  CHECK(reorders == std::set<std::string>{stem->name() + ".reorder", l1a->name() + ".reorder",
                                          c1->name() + ".reorder", e->name() + ".reorder"});
  CHECK(steps[l1b->name()]->in_place);
  CHECK(steps[e->name()]->in_place);
}
