// The reference kernel of arange against torch 1.13's values (each names the torch call), and
// the reference's refusal of a symbol it has no value for.
#include <catch2/catch.hpp>

#include "engine/ops/op_registry.h"
#include "eval/reference.h"
#include "tests/eval/folding.h"

using namespace graft;
using namespace graft::testing;

namespace {

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("arange computes torch's values in torch's dtype", "[eval][arange]") {
  // torch.arange(5)
  Folded a = fold("arange", {}, {{"start", int64_t{0}}, {"end", int64_t{5}}});
  CHECK(a.i64() == Ints{0, 1, 2, 3, 4});
  // torch.arange(10, 0, -3)
  CHECK(fold("arange", {}, {{"start", int64_t{10}}, {"end", int64_t{0}}, {"step", int64_t{-3}}})
            .i64() == Ints{10, 7, 4, 1});
  // torch.arange(2, 2)
  CHECK(fold("arange", {}, {{"start", int64_t{2}}, {"end", int64_t{2}}}).shape() == Shape{0});
  // torch.arange(-3, 3, 2.5)
  CHECK(fold("arange", {}, {{"start", int64_t{-3}}, {"end", int64_t{3}}, {"step", 2.5}}).f32() ==
        std::vector<float>{-3.0f, -0.5f, 2.0f});
  // torch.arange(0, 1, 0.1).tolist()
  CHECK(fold("arange", {}, {{"start", int64_t{0}}, {"end", int64_t{1}}, {"step", 0.1}}).f32() ==
        std::vector<float>{0.0f, 0.10000000149011612f, 0.20000000298023224f,
                           0.30000001192092896f, 0.4000000059604645f, 0.5f, 0.6000000238418579f,
                           0.699999988079071f, 0.800000011920929f, 0.8999999761581421f});
  // torch.arange(0, 5.5, dtype=torch.int64), torch.arange(0.5, 5, 1.5, dtype=torch.int64):
  // the bounds truncated first
  CHECK(fold("arange", {}, {{"start", int64_t{0}}, {"end", 5.5}, {"dtype", std::string("int64")}})
            .i64() == Ints{0, 1, 2, 3, 4});
  CHECK(fold("arange", {}, {{"start", 0.5}, {"end", int64_t{5}}, {"step", 1.5},
                            {"dtype", std::string("int64")}})
            .i64() == Ints{0, 1, 2, 3, 4});
  // torch.arange(0, 5, dtype=torch.float32)
  CHECK(fold("arange", {}, {{"start", int64_t{0}}, {"end", int64_t{5}},
                            {"dtype", std::string("float32")}})
            .f32() == std::vector<float>{0, 1, 2, 3, 4});
}

TEST_CASE("the reference refuses a symbolic attribute instead of guessing", "[eval][arange]") {
  // Without concretize_graph's substitution the kernel has no value for T; it must not read
  // the symbol as None (the whole dim).
  const OpSchema* slice = OpRegistry::get().find("slice");
  std::vector<AttrValue> attrs = Graph::default_attrs(*slice);
  attrs[static_cast<size_t>(slice->attr_index("end"))] = std::string("T");
  auto node = Graph::make_detached_call(*slice, {Input::none()}, attrs);
  eval::Tensor x = eval::Tensor::zeros(DType::kInt64, {4});
  eval::Tensor out = eval::Tensor::zeros(DType::kInt64, {4});
  std::string error;
  CHECK_FALSE(eval::reference_op(*node, {eval::RefOperand{&x, std::nullopt}}, out, &error));
  CHECK(error == "'slice' has a symbolic attribute; bind its symbol first");
}
