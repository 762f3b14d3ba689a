// The element formulas (eval/elementwise_formulas.h) at the special values where torch's
// results are easy to get wrong: NaN passes through every activation, and -0.0 keeps its sign
// where torch keeps it. The expected values are torch 1.13's.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/ops/op_registry.h"
#include "eval/elementwise_formulas.h"

using namespace graft::eval;

namespace {

double unary(std::string_view op, double v, ElementParams p = {}) {
  double out = 12345;
  with_unary(graft::OpRegistry::get().find(op)->elementwise->formula, p,
             [&](auto fn) { out = fn(v); });
  return out;
}

}  // namespace

TEST_CASE("activations pass NaN through and keep -0.0 as torch does", "[runtime][elementwise]") {
  const double nan = std::nan("");
  for (const char* op : {"relu", "relu6", "clamp", "leaky_relu", "elu", "hardswish",
                         "hardsigmoid", "softplus", "silu", "sigmoid", "tanh", "gelu"}) {
    INFO(op);
    // clamp with bounds [-1, 1], leaky_relu's slope 0.01, elu's alpha 1, softplus's beta 1
    // and threshold 20: the values torch's defaults give.
    ElementParams p = std::string_view(op) == "clamp"     ? ElementParams{-1, 1}
                      : std::string_view(op) == "softplus" ? ElementParams{1, 20}
                      : std::string_view(op) == "leaky_relu" ? ElementParams{0.01, 0}
                                                           : ElementParams{1, 0};
    CHECK(std::isnan(unary(op, nan, p)));
  }
  // torch.relu(-0.0), relu6, hardtanh and leaky_relu are -0.0; elu's is +0.0.
  for (const char* op : {"relu", "relu6", "leaky_relu"}) {
    INFO(op);
    const double r = unary(op, -0.0, {0.01, 0});
    CHECK(r == 0);
    CHECK(std::signbit(r));
  }
  CHECK(std::signbit(unary("clamp", -0.0, {-1, 1})));
  CHECK(unary("relu", -2) == 0);
  CHECK(unary("relu", 3) == 3);
}
