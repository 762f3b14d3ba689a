// Unary elementwise ops vs the reference, on plain inputs and on blocked ones (after a conv).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

namespace {

struct UnaryCase {
  const char* op;
  std::map<std::string, AttrValue> attrs;
  float lo = -3, hi = 3;  // input range (positive for sqrt, log, …)
};

std::vector<UnaryCase> unary_cases() {
  return {
      {"relu", {}}, {"relu6", {}, -8, 8},
      {"hardtanh", {{"min_val", -0.5}, {"max_val", 1.5}}},
      {"leaky_relu", {{"negative_slope", 0.2}}}, {"elu", {{"alpha", 0.7}}},
      {"hardswish", {}, -5, 5}, {"hardsigmoid", {}, -5, 5}, {"silu", {}}, {"sigmoid", {}},
      {"gelu", {}}, {"gelu", {{"approximate", std::string("tanh")}}}, {"tanh", {}},
      {"sqrt", {}, 0.01f, 4}, {"rsqrt", {}, 0.01f, 4}, {"exp", {}}, {"log", {}, 0.01f, 4},
      {"neg", {}}, {"reciprocal", {}, 0.5f, 4}, {"abs", {}}, {"erf", {}},
      {"clamp", {{"min", -1.0}, {"max", 0.5}}}, {"clamp", {{"min", 0.25}}},
      {"clamp", {{"max", -0.25}}},
      // softplus: soft_relu alone; scaled by beta, crossing the threshold (beta * x up to 30);
      // a threshold small enough to matter (the fallback)
      {"softplus", {}}, {"softplus", {{"beta", 2.0}}, -15, 15},
      {"softplus", {{"beta", 0.5}, {"threshold", 1.0}}},
      // dropout at inference (training=False) is the identity; training mode is refused
      // (executable_test)
      {"dropout", {{"p", 0.3}, {"training", false}}}, {"contiguous", {}}, {"clone", {}},
  };
}

}  // namespace

TEST_CASE("unary elementwise ops match the reference on plain inputs", "[runtime][eltwise]") {
  for (const UnaryCase& c : unary_cases()) {
    GraphBuilder b;
    Node* x = b.input("x", {3, 5, 7});
    Node* y = b.call(c.op, {in(x)}, c.attrs);
    b.output({y});
    INFO("op " << c.op);
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 5, c.lo, c.hi), 1e-5, 1e-5) == "");
  }
}

TEST_CASE("unary elementwise ops keep a convolution's blocked layout", "[runtime][eltwise][layout]") {
  for (const UnaryCase& c : unary_cases()) {
    GraphBuilder b;
    Node* x = b.input("x", {2, 16, 5, 5});
    const bool positive = c.lo > 0;  // sqrt, log, …: keep the conv's result positive
    Node* w = b.constant("w", {20, 16, 1, 1}, 3, positive ? 0.0f : -0.3f, 0.3f);
    Node* conv = b.call("conv2d", {in(x), in(w)});
    Node* y = b.call(c.op, {in(conv)}, c.attrs);
    Node* z = b.call("conv2d", {in(y), in(b.constant("w2", {8, 20, 1, 1}, 4))});
    b.output({z});
    INFO("op " << c.op);
    auto inputs = random_inputs(b.graph(), 6, positive ? 0.01f : -2.0f, 2.0f);
    CHECK(check_all_modes(b.graph(), inputs, 1e-4, 1e-4) == "");
  }
}

TEST_CASE("softplus runs on oneDNN's soft_relu unless its threshold shows", "[runtime][eltwise]") {
  // At a threshold of 15 or more, torch's linear branch and log(1 + exp(y)) round to the same
  // float; below that the threshold changes results and the fallback computes it.
  struct Case {
    double beta, threshold;
    const char* impl;
  };
  for (const Case& c : {Case{1, 20, "eltwise"}, Case{-2, 15, "eltwise"}, Case{1, 14, "fallback"},
                        Case{0, 20, "fallback"}}) {
    GraphBuilder b;
    Node* x = b.input("x", {4, 9});
    b.output({b.call("softplus", {in(x)}, {{"beta", c.beta}, {"threshold", c.threshold}})});
    std::unique_ptr<runtime::Executable> exe;
    INFO("beta " << c.beta << " threshold " << c.threshold);
    CHECK(check_against_reference(b.graph(), random_inputs(b.graph(), 7, -40, 40), {}, 1e-5, 1e-5,
                                  &exe) == "");
    REQUIRE(exe != nullptr);
    bool found = false;
    for (const runtime::StepInfo& s : exe->steps()) {
      if (s.op == "softplus") found = s.impl.find(c.impl) != std::string::npos;
    }
    CHECK(found);
  }
}

TEST_CASE("exp and rsqrt give torch's results at NaN and the infinities", "[runtime][eltwise]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {nan, inf, -inf, 0.0f, -0.0f, 4.0f};
  // torch 1.13: torch.exp(torch.tensor([nan, inf, -inf, 0., -0., 4.])) and torch.rsqrt(...)
  const std::vector<std::pair<const char*, std::vector<float>>> cases = {
      {"exp", {nan, inf, 0.0f, 1.0f, 1.0f, std::exp(4.0f)}},
      {"rsqrt", {nan, 0.0f, nan, inf, -inf, 0.5f}},
  };
  for (const auto& [op, want] : cases) {
    GraphBuilder b;
    Node* in_x = b.input("x", {6});
    b.output({b.call(op, {in(in_x)})});
    DiagnosticEngine diags;
    std::unique_ptr<runtime::Executable> exe = runtime::compile(b.graph(), {}, diags);
    REQUIRE(exe != nullptr);
    std::optional<std::vector<eval::Tensor>> out =
        exe->run({eval::Tensor::from_floats({6}, x)}, diags);
    REQUIRE(out.has_value());
    for (size_t i = 0; i < x.size(); ++i) {
      INFO(op << "(" << x[i] << ")");
      float got = (*out)[0].f32()[i];
      if (std::isnan(want[i])) {
        CHECK(std::isnan(got));
      } else {
        CHECK(got == Approx(want[i]).epsilon(1e-6));
        CHECK(std::signbit(got) == std::signbit(want[i]));
      }
    }
  }
}
