// SymInt[] attributes (reshape's shape, unflatten's sizes): which lists they accept, how they
// print, hash and compare, and the shapes reshape and unflatten infer from symbolic sizes
// (a symbol is its dim; a -1 is solved when the symbols cancel, else unknown).
#include <catch2/catch.hpp>

#include "engine/ir/attr_table.h"
#include "engine/ops/op_registry.h"
#include "tests/engine/ops/infer_testing.h"

using graft::AttrValue;
using graft::SymInts;
using graft::testing::infer;

namespace {

/// [-1, "T", 12] as a SymInts value: strings are symbols, numbers sizes.
AttrValue sizes(std::initializer_list<graft::SymInt> items) { return AttrValue{SymInts(items)}; }
AttrValue ints(std::vector<int64_t> v) { return AttrValue{std::move(v)}; }
AttrValue i(int64_t value) { return AttrValue{value}; }
graft::SymInt s(const char* name) { return std::string(name); }

const graft::AttrSpec& spec(const char* op, const char* attr) {
  const graft::OpSchema* schema = graft::OpRegistry::get().find(op);
  REQUIRE(schema != nullptr);
  return schema->attrs[static_cast<size_t>(schema->attr_index(attr))];
}

}  // namespace

TEST_CASE("SymInt[] parameters are symbolic int lists", "[engine][symint]") {
  CHECK(spec("reshape", "shape").symbolic);
  CHECK(spec("reshape", "shape").type == graft::AttrType::kInts);
  CHECK(spec("unflatten", "sizes").symbolic);
  CHECK_FALSE(spec("expand", "size").symbolic);
  std::string error;
  std::optional<graft::OpSchema> parsed =
      graft::parse_op_signature("f(Tensor input, SymInt[] sizes, SymInt n=0)", &error);
  REQUIRE(parsed);
  CHECK(parsed->attrs[0].symbolic);
  CHECK(parsed->attrs[0].type == graft::AttrType::kInts);
  CHECK(parsed->attrs[1].type == graft::AttrType::kInt);
}

TEST_CASE("a SymInt[] value keeps its symbols, and a list of numbers is an int list",
          "[engine][symint]") {
  std::string error;
  const graft::AttrSpec& shape = spec("reshape", "shape");
  CHECK(graft::coerce_attr(shape, sizes({-1, s("T"), 12}), &error) == sizes({-1, s("T"), 12}));
  CHECK(graft::coerce_attr(shape, sizes({2, 3}), &error) == ints({2, 3}));
  CHECK(graft::coerce_attr(shape, ints({2, -1}), &error) == ints({2, -1}));
  CHECK_FALSE(graft::coerce_attr(shape, sizes({s("N"), s("2*T")}), &error));
  CHECK(error == "item 1 is not an int or a symbol such as 'T': got str '2*T'");
  CHECK_FALSE(graft::coerce_attr(shape, AttrValue{std::string("T")}, &error));
  CHECK(error == "expected a list of ints and symbols, got str 'T'");
  CHECK_FALSE(graft::coerce_attr(spec("expand", "size"), sizes({s("N"), -1}), &error));
  CHECK(error == "expected int[], got SymInt[] [N, -1]");
}

TEST_CASE("a SymInt[] value prints its symbols bare, hashes and compares by item",
          "[engine][symint]") {
  CHECK(graft::attr_to_string(sizes({-1, s("T"), 12, 64})) == "[-1, T, 12, 64]");
  CHECK(std::string(graft::attr_value_kind(sizes({s("T")}))) == "SymInt[]");
  CHECK(graft::attr_equal(sizes({s("N"), 8}), sizes({s("N"), 8})));
  CHECK_FALSE(graft::attr_equal(sizes({s("N"), 8}), sizes({s("T"), 8})));
  CHECK_FALSE(graft::attr_equal(sizes({s("N"), 8}), ints({2, 8})));
  graft::AttrList a{sizes({s("N"), s("T"), 8})};
  graft::AttrList same{sizes({s("N"), s("T"), 8})};
  graft::AttrList other{sizes({s("T"), s("N"), 8})};
  CHECK(graft::hash_attrs(a) == graft::hash_attrs(same));
  CHECK(graft::hash_attrs(a) != graft::hash_attrs(other));
  CHECK(graft::attrs_identical(a, same));
  CHECK_FALSE(graft::attrs_identical(a, other));
  graft::AttrTable table;
  CHECK(table.intern(a) == table.intern(same));
  CHECK(table.intern(a) != table.intern(other));
}

TEST_CASE("a reshape's symbolic sizes are its result's dims", "[engine][symint]") {
  // [N*T, C] -> [N, T, C], nn.MultiheadAttention's output
  CHECK(infer("reshape", {"f32[?, 32]"}, {{"shape", sizes({s("N"), s("T"), 32})}}).str() ==
        "float32[N, T, 32]");
  CHECK(infer("reshape", {"f32[6, 32]"}, {{"shape", sizes({s("N"), 3, 32})}}).str() ==
        "float32[N, 3, 32]");
  // the -1 is solved when the symbols cancel: [N, T, 768] -> [N, -1, 12, 64] is [N, T, 12, 64]
  CHECK(infer("reshape", {"f32[N, T, 768]"}, {{"shape", sizes({s("N"), -1, 12, 64})}}).str() ==
        "float32[N, T, 12, 64]");
  CHECK(infer("reshape", {"f32[N, T, 768]"}, {{"shape", sizes({s("N"), s("T"), 12, -1})}})
            .str() == "float32[N, T, 12, 64]");
  // ... and unknown when they do not
  CHECK(infer("reshape", {"f32[N, T, 768]"}, {{"shape", sizes({s("N"), -1, 24, 64})}}).str() ==
        "float32[N, ?, 24, 64]");
  CHECK(infer("reshape", {"f32[?, 32]"}, {{"shape", sizes({s("N"), -1, 32})}}).str() ==
        "float32[N, ?, 32]");
  CHECK(infer("reshape", {"f32[12, 32]"}, {{"shape", sizes({s("N"), -1})}}).str() ==
        "float32[N, ?]");
}

TEST_CASE("a reshape's symbolic sizes are checked where the symbols cancel", "[engine][symint]") {
  auto [result, message] = GENERATE(table<graft::testing::InferResult, std::string>({
      {infer("reshape", {"f32[N, T, 768]"}, {{"shape", sizes({s("N"), s("T"), 12, 32})}}),
       "cannot reshape [N, T, 768] (? elements) into [N, T, 12, 32]"},
      {infer("reshape", {"f32[N, 8]"}, {{"shape", sizes({s("N"), -1, -1})}}),
       "only one dim can be -1 in [N, -1, -1]"},
      {infer("reshape", {"f32[N, 8]"}, {{"shape", sizes({s("N"), -2})}}),
       "invalid size -2 in [N, -2] (sizes are >= 0, or -1 for one inferred dim)"},
      {infer("reshape", {"f32[N, 8]"}, {{"shape", sizes({s("N"), 0, -1})}}),
       "cannot reshape [N, 8] (? elements) into [N, 0, -1]"},
  }));
  CHECK(result.str() == "error: " + message);
}

TEST_CASE("an unflatten's symbolic sizes are its result's dims", "[engine][symint]") {
  CHECK(infer("unflatten", {"f32[?, 32]"}, {{"dim", i(0)}, {"sizes", sizes({s("N"), s("T")})}})
            .str() == "float32[N, T, 32]");
  CHECK(infer("unflatten", {"f32[T, 32]"}, {{"dim", i(0)}, {"sizes", sizes({s("T"), -1})}})
            .str() == "float32[T, 1, 32]");
  CHECK(infer("unflatten", {"f32[8, 32]"}, {{"dim", i(0)}, {"sizes", sizes({s("T"), -1})}})
            .str() == "float32[T, ?, 32]");
  CHECK(infer("unflatten", {"f32[T, 32]"}, {{"dim", i(0)}, {"sizes", sizes({s("T"), 2})}})
            .str() == "error: sizes [T, 2] do not multiply to the size T of dim 0");
}
