// SymInt attributes: which parameters take a symbol (or a sum of multiples of symbols, "T-1"),
// and the shapes slice and arange infer from one (a symbolic end gives the symbol's dim; other
// symbolic bounds an unknown dim).
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/ops/op_registry.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::testing::infer;

namespace {

AttrValue sym(const char* name) { return AttrValue{std::string(name)}; }
AttrValue i(int64_t value) { return AttrValue{value}; }

const graft::AttrSpec& spec(const char* op, const char* attr) {
  const graft::OpSchema* schema = graft::OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  return schema->attrs[static_cast<size_t>(schema->attr_index(attr))];
}

}  // namespace

TEST_CASE("only SymInt parameters accept a symbol", "[engine][symint]") {
  std::string error;
  CHECK(spec("slice", "end").symbolic);
  CHECK(spec("slice", "end").type == graft::AttrType::kInt);
  CHECK(spec("arange", "end").type == graft::AttrType::kScalar);
  CHECK(graft::coerce_attr(spec("slice", "end"), sym("T"), &error) == sym("T"));
  CHECK_FALSE(spec("slice", "step").symbolic);
  CHECK_FALSE(graft::coerce_attr(spec("slice", "step"), sym("T"), &error));
  CHECK(error == "expected int, got str 'T'");
  CHECK_FALSE(graft::coerce_attr(spec("select", "index"), sym("T"), &error));
  CHECK_FALSE(graft::coerce_attr(spec("slice", "end"), sym("3T"), &error));
  CHECK(error == "expected int or a symbol such as 'T' (or a sum of multiples of symbols and an "
                 "int, 'T-1'), got str '3T'");
  CHECK_FALSE(graft::coerce_attr(spec("arange", "end"), sym("inf"), &error));
}

TEST_CASE("a SymInt may be a sum of multiples of symbols and an int", "[engine][symint]") {
  std::string error;
  for (const char* text : {"T-1", "2*T", "-T+5", "N+2*T-3", "0*T"}) {
    INFO(text);
    CHECK(graft::coerce_attr(spec("slice", "end"), sym(text), &error) == sym(text));
    CHECK(graft::coerce_attr(spec("arange", "end"), sym(text), &error) == sym(text));
  }
  for (const char* text : {"T*2", "2T", "3", "T--1", "T+", "-inf", "T-inf", "2*3", "T*T", ""}) {
    INFO(text);
    CHECK_FALSE(graft::coerce_attr(spec("slice", "end"), sym(text), &error));
  }
  CHECK(graft::attr_symbols(spec("slice", "end"), sym("N+2*T-3")) ==
        std::vector<std::string>{"N", "T"});
}

TEST_CASE("a slice or an arange to a sum of symbols has an unknown size", "[engine][symint]") {
  CHECK(infer("slice", {"f32[N, 16]"}, {{"dim", i(1)}, {"end", sym("T-1")}}).str() ==
        "float32[N, ?]");
  CHECK(infer("arange", {}, {{"start", i(0)}, {"end", sym("2*T")}}).str() == "int64[?]");
}

TEST_CASE("a slice to a symbolic end has the symbol's size", "[engine][symint]") {
  CHECK(infer("slice", {"f32[1, 1, 16, 16]"}, {{"dim", i(2)}, {"end", sym("T")}}).str() ==
        "float32[1, 1, T, 16]");
  CHECK(infer("slice", {"f32[N, S]"}, {{"dim", i(1)}, {"start", i(0)}, {"end", sym("T")}})
            .str() == "float32[N, T]");
  // other symbolic bounds: the size depends on the symbol's value and the dim
  CHECK(infer("slice", {"f32[16]"}, {{"start", i(1)}, {"end", sym("T")}}).str() ==
        "float32[?]");
  CHECK(infer("slice", {"f32[16]"}, {{"end", sym("T")}, {"step", i(2)}}).str() ==
        "float32[?]");
  CHECK(infer("slice", {"f32[16]"}, {{"start", sym("T")}}).str() == "float32[?]");
}

TEST_CASE("arange infers its length and torch's default dtype", "[engine][symint]") {
  CHECK(infer("arange", {}, {{"start", i(0)}, {"end", i(5)}}).str() == "int64[5]");
  CHECK(infer("arange", {}, {{"start", i(0)}, {"end", sym("T")}}).str() == "int64[T]");
  CHECK(infer("arange", {}, {{"start", i(1)}, {"end", sym("T")}}).str() == "int64[?]");
  // torch.arange(1, 2.5, 0.5), torch.arange(10, 0, -3), torch.arange(0, 1, 0.1)
  CHECK(infer("arange", {}, {{"start", i(1)}, {"end", AttrValue{2.5}}, {"step", AttrValue{0.5}}})
            .str() == "float32[3]");
  CHECK(infer("arange", {}, {{"start", i(10)}, {"end", i(0)}, {"step", i(-3)}}).str() ==
        "int64[4]");
  CHECK(infer("arange", {}, {{"start", i(0)}, {"end", i(1)}, {"step", AttrValue{0.1}}}).str() ==
        "float32[10]");
  CHECK(infer("arange", {}, {{"start", i(0)}, {"end", sym("T")}, {"dtype", sym("float32")}})
            .str() == "float32[T]");
}

TEST_CASE("arange refuses the ranges torch refuses", "[engine][symint]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("arange", {}, {{"start", i(0)}, {"end", i(5)}, {"step", i(0)}}),
       "step must be nonzero"},
      {infer("arange", {}, {{"start", i(5)}, {"end", i(0)}}),
       "upper bound and larger bound inconsistent with step sign"},
      {infer("arange", {}, {{"start", i(0)}, {"end", AttrValue{INFINITY}}}),
       "unsupported range: 0 -> inf"},
      {infer("arange", {}, {{"start", i(0)}, {"end", i(5)}, {"dtype", sym("bool")}}),
       "dtype must be 'float32' or 'int64', got 'bool'"},
  }));
  CHECK(result.str() == "error: " + message);
}
