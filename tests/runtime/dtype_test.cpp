// int64 and bool tensors through the runtime: inputs, data-movement kernels, constants and
// outputs of those dtypes, and the compile-time refusal of a float32 kernel on them.
#include <catch2/catch.hpp>

#include "tests/runtime/runtime_testing.h"

using namespace graft;
using namespace graft::testing;

TEST_CASE("int64 and bool values move through views, permutes and cats", "[runtime][dtype]") {
  for (DType dtype : {DType::kInt64, DType::kBool}) {
    GraphBuilder b;
    Node* x = b.input("x", {2, 3, 4}, dtype);
    Node* y = b.input("y", {2, 3, 1}, dtype);
    Node* r = b.call("reshape", {in(x)}, {{"shape", std::vector<int64_t>{6, 4}}});
    Node* p = b.call("permute", {in(x)}, {{"dims", std::vector<int64_t>{2, 0, 1}}});
    Node* t = b.call("transpose", {in(p)}, {{"dim0", int64_t{0}}, {"dim1", int64_t{2}}});
    Node* c = b.call("cat", {in(x), in(y), in(x)}, {{"dim", int64_t{-1}}});
    Node* f = b.call("flatten", {in(c)});
    Node* u = b.call("unsqueeze", {in(t)}, {{"dim", int64_t{0}}});
    Node* k = b.call("clone", {in(u)});
    b.output({r, p, t, c, f, k, x});
    INFO(dtype_name(dtype));
    CHECK(check_all_modes(b.graph(), random_inputs(b.graph(), 7, -1, 1, 1000)) == "");
  }
}

TEST_CASE("int64 values beyond float precision move exactly", "[runtime][dtype]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3}, DType::kInt64);
  Node* k = b.int_constant("k", {2, 1}, {(int64_t{1} << 53) + 1, -(int64_t{1} << 40) - 3});
  Node* c = b.call("cat", {in(x), in(k)}, {{"dim", int64_t{1}}});
  Node* t = b.call("transpose", {in(c)}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
  b.output({t});
  DiagnosticEngine diags;
  auto exe = runtime::compile(b.graph(), {}, diags);
  REQUIRE(exe);
  eval::Tensor xs = eval::Tensor::from_ints({2, 3}, {1, 2, 3, 4, 5, int64_t{1} << 62});
  auto out = exe->run({xs}, diags);
  REQUIRE(out);
  REQUIRE((*out)[0].dtype() == DType::kInt64);
  std::vector<int64_t> got((*out)[0].i64(), (*out)[0].i64() + 8);
  CHECK(got == std::vector<int64_t>{1, 4, 2, 5, 3, int64_t{1} << 62, (int64_t{1} << 53) + 1,
                                    -(int64_t{1} << 40) - 3});
}

TEST_CASE("a float32 kernel on an int64 tensor is refused at compile time, naming the node",
          "[runtime][dtype]") {
  GraphBuilder b;
  Node* x = b.input("x", {2, 3}, DType::kInt64);
  Node* r = b.call("reshape", {in(x)}, {{"shape", std::vector<int64_t>{3, 2}}});
  Node* s = b.call("relu", {in(r)});
  b.output({s});
  DiagnosticEngine diags;
  CHECK_FALSE(runtime::compile(b.graph(), {}, diags));
  CHECK_THAT(diags.render(), Catch::Contains("node '" + s->name() + "' (relu)") &&
                                 Catch::Contains("dtype int64") &&
                                 Catch::Contains("float32 only"));
}
