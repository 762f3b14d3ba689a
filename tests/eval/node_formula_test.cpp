// The formula an elementwise node computes (eval/node_formula.h), read from the op's registry
// row: variant attributes select a formula, parameter attributes give alpha and beta with the
// row's values for None, and values the row does not list are errors.
#include "eval/node_formula.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/ir/graph.h"
#include "engine/ops/op_registry.h"

using namespace graft;

namespace {

/// The formula of `op` with its default attributes, `attr` set to `value` if given.
std::optional<eval::NodeFormula> formula(const std::string& op, const std::string& attr = "",
                                         AttrValue value = {}, std::string* error = nullptr) {
  const OpSchema& schema = *OpRegistry::get().find(op);
  std::vector<AttrValue> attrs = Graph::default_attrs(schema);
  if (!attr.empty()) attrs[static_cast<size_t>(schema.attr_index(attr))] = std::move(value);
  std::string ignored;
  return eval::node_formula(schema, attrs, error ? error : &ignored);
}

}  // namespace

TEST_CASE("an op's row gives its formula and the attributes of its parameters",
          "[eval][formula]") {
  auto hardtanh = formula("hardtanh", "max_val", 6.0);
  REQUIRE(hardtanh);
  CHECK(hardtanh->op == Formula::kClamp);
  CHECK(hardtanh->params.alpha == -1.0);
  CHECK(hardtanh->params.beta == 6.0);
  auto add = formula("add", "alpha", int64_t{3});
  REQUIRE(add);
  CHECK(add->op == Formula::kAdd);
  CHECK(add->params.alpha == 3.0);
  // mul has no alpha: the formula's alpha is add's default, 1.
  CHECK(formula("mul")->params.alpha == 1.0);
}

TEST_CASE("a None parameter takes the row's value for None", "[eval][formula]") {
  auto clamp = formula("clamp", "max", 2.0);
  REQUIRE(clamp);
  CHECK(clamp->params.alpha == -INFINITY);
  CHECK(clamp->params.beta == 2.0);
}

TEST_CASE("a string attribute selects a variant formula", "[eval][formula]") {
  CHECK(formula("gelu")->op == Formula::kGelu);
  CHECK(formula("gelu", "approximate", std::string("tanh"))->op == Formula::kGeluTanh);
  CHECK(formula("div")->op == Formula::kDiv);
  CHECK(formula("div", "rounding_mode", std::string("none"))->op == Formula::kDiv);
  CHECK(formula("div", "rounding_mode", std::string("floor"))->op == Formula::kDivFloor);
  CHECK(formula("div", "rounding_mode", std::string("trunc"))->op == Formula::kDivTrunc);
  std::string error;
  CHECK_FALSE(formula("div", "rounding_mode", std::string("round"), &error));
  CHECK(error == "div rounding_mode must be None or one of 'none', 'trunc', 'floor', got 'round'");
}

TEST_CASE("a parameter that is not a number and an op without a formula are errors",
          "[eval][formula]") {
  std::string error;
  CHECK_FALSE(formula("leaky_relu", "negative_slope", std::string("x"), &error));
  CHECK(error == "op 'leaky_relu': attribute 'negative_slope' is not a number");
  CHECK_FALSE(formula("conv2d", "", {}, &error));
  CHECK(error == "op 'conv2d' has no elementwise formula");
}
