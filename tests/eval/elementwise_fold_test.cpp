// The constant folder's elementwise fast path (eval/elementwise_fold.h) against its generic
// reference path, byte for byte: every op the fast path handles, on random shapes with
// broadcasting, rank differences, scalar literals, empty tensors, special values and random
// attributes; and the cases it declines, which must give the generic path's result or error.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "eval/constant_folder.h"
#include "eval/elementwise_fold.h"
#include "tests/property/rng.h"

using namespace graft;
using namespace graft::testing;
using eval::FoldPath;

namespace {

/// One input of a fold: a constant or a scalar literal.
struct Arg {
  std::optional<ConstantTensor> tensor;
  std::optional<Scalar> scalar;
};

Arg literal(double v, bool is_int = false) { return {std::nullopt, Scalar{v, is_int}}; }
Arg constant(ConstantTensor t) { return {std::move(t), std::nullopt}; }

/// A call of `op` on `args`, as the rewrite driver hands it to the folder: a detached node of
/// the inferred type (or `type`, to state one inference would reject) whose inputs are get_attr
/// nodes of the constants, and one constant per input (null for literals and `missing` ones).
class FoldCall {
 public:
  FoldCall(const OpSchema& schema, std::vector<Arg> args,
           const std::map<std::string, AttrValue>& attrs, std::optional<TensorType> type = {},
           std::vector<bool> missing = {})
      : args_(std::move(args)) {
    std::vector<Input> inputs;
    for (size_t i = 0; i < args_.size(); ++i) {
      if (args_[i].scalar) {
        inputs.push_back(Input::of(*args_[i].scalar));
        operands_.push_back(nullptr);
        continue;
      }
      Node* n = graph_.add_get_attr("c" + std::to_string(i), "c" + std::to_string(i));
      n->meta().set_type(args_[i].tensor->type());
      inputs.push_back(Input::of(n));
      operands_.push_back(i < missing.size() && missing[i] ? nullptr : &*args_[i].tensor);
    }
    std::vector<AttrValue> values = Graph::default_attrs(schema);
    for (const auto& [name, value] : attrs) {
      int index = schema.attr_index(name);
      REQUIRE(index >= 0);
      values[static_cast<size_t>(index)] = value;  // raw: the folder must cope with any value
    }
    node_ = Graph::make_detached_call(schema, std::move(inputs), std::move(values));
    if (!type) {
      std::string error;
      type = infer_node_type(*node_, &error);
      INFO(error);
      REQUIRE(type);
    }
    node_->meta().set_type(type);
  }

  /// The folder's answer: the tensor, or the error it reported.
  struct Result {
    std::optional<ConstantTensor> value;
    std::string error;
  };
  Result fold(FoldPath path) const {
    Result r;
    r.value = eval::reference_constant_folder(path).fold(*node_, operands_, &r.error);
    return r;
  }
  std::optional<ConstantTensor> fold_fast_only() const {
    return eval::fold_elementwise(*node_, operands_);
  }
  const Node& node() const { return *node_; }
  const std::vector<const ConstantTensor*>& operands() const { return operands_; }

 private:
  std::vector<Arg> args_;  // the constants operands_ points into
  Graph graph_;
  DetachedCall node_;
  std::vector<const ConstantTensor*> operands_;
};

/// "" if both folds gave the same bytes (or the same error), else what differs.
std::string compare(const FoldCall::Result& fast, const FoldCall::Result& generic) {
  if (!fast.value || !generic.value) {
    if (fast.value.has_value() != generic.value.has_value() || fast.error != generic.error) {
      return "fast: " + (fast.value ? "a value" : "'" + fast.error + "'") +
             "; generic: " + (generic.value ? "a value" : "'" + generic.error + "'");
    }
    return "";
  }
  const ConstantTensor& a = *fast.value;
  const ConstantTensor& b = *generic.value;
  if (a.type() != b.type()) return type_to_string(a.type()) + " vs " + type_to_string(b.type());
  if (a.nbytes != b.nbytes) return "nbytes differ";
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::memcmp(a.f32() + i, b.f32() + i, sizeof(float)) != 0) {
      return "element " + std::to_string(i) + ": " + std::to_string(a.f32()[i]) + " vs " +
             std::to_string(b.f32()[i]);
    }
  }
  return "";
}

/// Mostly ordinary values, with the ones where formulas differ most: zeros of both signs,
/// infinities, NaN, integers and halves (floor/trunc, pow), tiny and huge magnitudes.
float random_value(Rng& rng) {
  constexpr float kSpecial[] = {0.0f,  -0.0f, INFINITY, -INFINITY, NAN,   1.0f,   -1.0f, 2.5f,
                                -2.5f, 3.0f,  1e-40f,   -1e-30f,   1e30f, -1e30f, 20.0f, -20.0f};
  if (rng.chance(0.15)) return rng.pick(kSpecial);
  return static_cast<float>(rng.uniform(-4, 4));
}

ConstantTensor random_tensor(Rng& rng, Shape shape) {
  int64_t n = 1;
  for (Dim d : shape) n *= d;
  std::vector<float> values(static_cast<size_t>(n));
  for (float& v : values) v = random_value(rng);
  return ConstantTensor::from_floats(std::move(shape), values);
}

/// A shape broadcasting to `out`: maybe fewer leading dims, and some dims 1.
Shape broadcast_shape_of(Rng& rng, const Shape& out) {
  size_t rank = out.size() - static_cast<size_t>(rng.below(static_cast<int>(out.size()) + 1));
  if (rng.chance(0.5)) rank = out.size();
  Shape s(out.end() - static_cast<std::ptrdiff_t>(rank), out.end());
  for (Dim& d : s) {
    if (rng.chance(0.35)) d = 1;
  }
  return s;
}

Shape random_shape(Rng& rng) {
  Shape s(static_cast<size_t>(rng.below(7)));  // up to the fast path's 6 dims
  for (Dim& d : s) d = rng.chance(0.04) ? 0 : 1 + rng.below(rng.chance(0.3) ? 9 : 4);
  return s;
}

AttrValue random_number(Rng& rng) {
  if (rng.chance(0.3)) return int64_t{rng.below(7) - 3};
  return rng.uniform(-3, 3);
}

/// The attribute values (keyed by name) to try on one call of `op`.
std::map<std::string, AttrValue> random_attrs(Rng& rng, const std::string& op) {
  std::map<std::string, AttrValue> attrs;
  auto maybe = [&](const char* name, AttrValue value) {
    if (rng.chance(0.6)) attrs[name] = std::move(value);
  };
  if (op == "add" || op == "sub")
    maybe("alpha", rng.chance(0.2) ? AttrValue{} : random_number(rng));
  if (op == "div") {
    const char* modes[] = {"trunc", "floor"};  // shape inference rejects any other string
    maybe("rounding_mode",
          rng.chance(0.25) ? AttrValue{} : AttrValue{std::string(rng.pick(modes))});
  }
  if (op == "hardtanh") {
    maybe("min_val", random_number(rng));
    maybe("max_val", random_number(rng));
  }
  if (op == "leaky_relu") maybe("negative_slope", random_number(rng));
  if (op == "elu") maybe("alpha", random_number(rng));
  if (op == "gelu") maybe("approximate", std::string(rng.chance(0.5) ? "tanh" : "none"));
  if (op == "clamp") {  // at least one bound
    const int bounds = 1 + rng.below(3);
    if (bounds & 1) attrs["min"] = random_number(rng);
    if (bounds & 2) attrs["max"] = random_number(rng);
  }
  if (op == "softplus") {
    maybe("beta", rng.uniform(0.25, 3));
    maybe("threshold", rng.uniform(-2, 25));
  }
  return attrs;
}

Arg random_binary_operand(Rng& rng, const Shape& out) {
  if (rng.chance(0.2)) {
    // Literals the reference rounds to float first: 1e-5 (eps) is not a float, 1e40 overflows.
    const double values[] = {1e-5, 0.1, -2.0, 0.0, 1e40, 3.0};
    return rng.chance(0.5) ? literal(rng.pick(values)) : literal(rng.below(5) - 2, true);
  }
  return constant(random_tensor(rng, broadcast_shape_of(rng, out)));
}

const char* const kBinaryOps[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum"};
const char* const kUnaryOps[] = {
    "sqrt",      "rsqrt",       "exp",  "log",     "neg",      "reciprocal", "abs",
    "erf",       "softplus",    "relu", "relu6",   "hardtanh", "leaky_relu", "elu",
    "hardswish", "hardsigmoid", "silu", "sigmoid", "gelu",     "tanh",       "clamp"};

const OpSchema& schema_of(const std::string& op) {
  const OpSchema* schema = OpRegistry::get().find(op);
  INFO(op);
  REQUIRE(schema != nullptr);
  return *schema;
}

}  // namespace

TEST_CASE("the fast elementwise fold gives the generic path's bytes for binary ops",
          "[runtime][constant_folder]") {
  for (const char* op : kBinaryOps) {
    const bool tensors_only = std::string(op) == "maximum" || std::string(op) == "minimum";
    Rng rng(std::hash<std::string>{}(op));
    for (int iteration = 0; iteration < 300; ++iteration) {
      const Shape out = random_shape(rng);
      Arg a = random_binary_operand(rng, out);
      Arg b = random_binary_operand(rng, out);
      if (a.scalar && b.scalar) a = constant(random_tensor(rng, out));  // a tensor result
      if (tensors_only && a.scalar) a = constant(random_tensor(rng, out));
      if (tensors_only && b.scalar) b = constant(random_tensor(rng, broadcast_shape_of(rng, out)));
      if (rng.chance(0.5)) std::swap(a, b);  // the lower rank or the literal on either side
      FoldCall call(schema_of(op), {a, b}, random_attrs(rng, op));
      INFO(op << " iteration " << iteration << ": " << type_to_string(*call.node().type()));
      CHECK(call.fold_fast_only().has_value());  // handled: not generic against generic
      CHECK(compare(call.fold(FoldPath::kFastElementwise), call.fold(FoldPath::kGenericOnly)) ==
            "");
    }
  }
}

TEST_CASE("a prepared fold reused on other operands of its types gives a fresh fold's bytes",
          "[runtime][constant_folder]") {
  // The rewrite driver prepares an op once and runs it at every match: the same operand types,
  // literals and attributes, other values.
  for (const char* op : kBinaryOps) {
    const bool tensors_only = std::string(op) == "maximum" || std::string(op) == "minimum";
    Rng rng(std::hash<std::string>{}(op) + 1);
    for (int iteration = 0; iteration < 100; ++iteration) {
      const Shape out = random_shape(rng);
      Arg a = tensors_only ? constant(random_tensor(rng, out)) : random_binary_operand(rng, out);
      Arg b = constant(random_tensor(rng, broadcast_shape_of(rng, out)));
      if (rng.chance(0.5)) std::swap(a, b);
      const std::map<std::string, AttrValue> attrs = random_attrs(rng, op);
      FoldCall first(schema_of(op), {a, b}, attrs);
      std::unique_ptr<PreparedFold> prepared =
          eval::reference_constant_folder().prepare(first.node());
      INFO(op << " iteration " << iteration << ": " << type_to_string(*first.node().type()));
      REQUIRE(prepared != nullptr);
      auto same_kind = [&](const Arg& x) {
        return x.scalar ? x : constant(random_tensor(rng, x.tensor->shape()));
      };
      for (int k = 0; k < 3; ++k) {
        FoldCall again(schema_of(op), {same_kind(a), same_kind(b)}, attrs);
        FoldCall::Result reused;
        ConstantTensor value;
        REQUIRE(prepared->run(again.operands(), &value));
        reused.value = std::move(value);
        CHECK(compare(reused, again.fold(FoldPath::kGenericOnly)) == "");
      }
      // An operand of another shape (one more leading dim) is declined, not misread.
      const Arg& tensor = a.tensor ? a : b;
      Shape wider = tensor.tensor->shape();
      wider.insert(wider.begin(), 2);
      ConstantTensor other = random_tensor(rng, wider);
      std::vector<const ConstantTensor*> operands = first.operands();
      (a.tensor ? operands[0] : operands[1]) = &other;
      ConstantTensor unused;
      CHECK_FALSE(prepared->run(operands, &unused));
    }
  }
}

TEST_CASE("the fast elementwise fold gives the generic path's bytes for unary ops",
          "[runtime][constant_folder]") {
  for (const char* op : kUnaryOps) {
    Rng rng(std::hash<std::string>{}(op));
    for (int iteration = 0; iteration < 100; ++iteration) {
      FoldCall call(schema_of(op), {constant(random_tensor(rng, random_shape(rng)))},
                    random_attrs(rng, op));
      INFO(op << " iteration " << iteration << ": " << type_to_string(*call.node().type()));
      CHECK(call.fold_fast_only().has_value());
      CHECK(compare(call.fold(FoldPath::kFastElementwise), call.fold(FoldPath::kGenericOnly)) ==
            "");
    }
  }
}

TEST_CASE("the batch-norm fold's ops take the fast path and match the generic one",
          "[runtime][constant_folder]") {
  // examples/rules/fuse.rules fuse_conv_bn on a conv weight [8, 8, 3, 3]:
  // scale = gamma * rsqrt(var + eps); w * reshape(scale, [-1, 1, 1, 1]); 0 * scale - mean * scale +
  // beta
  Rng rng(7);
  const ConstantTensor v = random_tensor(rng, {8}), w = random_tensor(rng, {8, 8, 3, 3});
  const ConstantTensor s = random_tensor(rng, {8, 1, 1, 1});
  const FoldCall calls[] = {
      {schema_of("add"), {constant(v), literal(1e-5)}, {}},
      {schema_of("rsqrt"), {constant(v)}, {}},
      {schema_of("mul"), {constant(v), constant(v)}, {}},
      {schema_of("mul"), {constant(w), constant(s)}, {}},
      {schema_of("mul"), {literal(0, true), constant(v)}, {}},
      {schema_of("sub"), {constant(v), constant(v)}, {}},
  };
  for (const FoldCall& call : calls) {
    INFO(call.node().target() << " " << type_to_string(*call.node().type()));
    CHECK(call.fold_fast_only().has_value());
    CHECK(compare(call.fold(FoldPath::kFastElementwise), call.fold(FoldPath::kGenericOnly)) == "");
  }
}

TEST_CASE("cases the fast elementwise fold declines give the generic path's result or error",
          "[runtime][constant_folder]") {
  Rng rng(11);
  const ConstantTensor x = random_tensor(rng, {2, 3});
  std::vector<int64_t> ints = {1, 2, 3, 4, 5, 6};
  std::vector<std::byte> int_bytes(ints.size() * sizeof(int64_t));
  std::memcpy(int_bytes.data(), ints.data(), int_bytes.size());
  const ConstantTensor int_tensor = ConstantTensor::owned(DType::kInt64, {2, 3}, int_bytes);
  // The same floats one byte into a buffer: safetensors data need not be aligned.
  auto unaligned_bytes = std::make_shared<std::vector<std::byte>>(x.nbytes + 1);
  std::memcpy(unaligned_bytes->data() + 1, x.data, x.nbytes);
  ConstantTensor unaligned = x;
  unaligned.data = unaligned_bytes->data() + 1;
  unaligned.owner = unaligned_bytes;
  if (reinterpret_cast<uintptr_t>(unaligned.data) % alignof(float) == 0) FAIL("not unaligned");
  // add's schema without its row's facts, as a schema built outside the op table is: the
  // kernels pick ops by their facts, not by their names.
  OpSchema stand_in = schema_of("add");
  stand_in.family = OpFamily::kNone;
  stand_in.elementwise.reset();
  const Shape rank7 = {2, 1, 2, 1, 2, 1, 2};

  struct Case {
    const char* what;
    FoldCall call;
  };
  Case cases[] = {
      {"alpha is not a number",
       {schema_of("add"), {constant(x), constant(x)}, {{"alpha", std::string("2")}}}},
      {"an unknown rounding mode",
       {schema_of("div"),
        {constant(x), literal(2)},
        {{"rounding_mode", std::string("round")}},
        x.type()}},
      {"gelu's approximate is neither 'none' nor 'tanh'",
       {schema_of("gelu"), {constant(x)}, {{"approximate", std::string("erf")}}, x.type()}},
      {"an int64 operand",
       {schema_of("add"),
        {constant(int_tensor), constant(x)},
        {},
        TensorType{DType::kFloat32, {2, 3}}}},
      {"an int64 result",
       {schema_of("add"), {constant(x), constant(x)}, {}, TensorType{DType::kInt64, {2, 3}}}},
      {"unaligned data", {schema_of("mul"), {constant(unaligned), constant(x)}, {}}},
      {"a missing operand",
       {schema_of("sub"), {constant(x), constant(x)}, {}, std::nullopt, {false, true}}},
      {"a unary op on a literal",
       {schema_of("relu"), {literal(-1.5)}, {}, TensorType{DType::kFloat32, {}}}},
      {"seven dims", {schema_of("add"), {constant(random_tensor(rng, rank7)), literal(0.5)}, {}}},
      {"a schema without facts", {stand_in, {constant(x), literal(0.5)}, {}}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK_FALSE(c.call.fold_fast_only().has_value());
    CHECK(compare(c.call.fold(FoldPath::kFastElementwise), c.call.fold(FoldPath::kGenericOnly)) ==
          "");
  }
}
