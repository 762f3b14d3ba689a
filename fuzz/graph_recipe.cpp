// See graph_recipe.h. Every choice reads one byte (`pick`), so a mutation of one byte changes
// one decision, which keeps libFuzzer's mutations meaningful. Constant values do not come from
// the recipe (a conv weight would eat it): one byte seeds a small generator per constant.
#include "fuzz/graph_recipe.h"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "fuzz/fuzz_support.h"

namespace graft::fuzz {
namespace {

/// The recipe's bytes as a stream of choices; zeros once exhausted.
class Recipe {
 public:
  Recipe(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  size_t pick(size_t n) { return byte() % n; }
  bool flag() { return (byte() & 1) != 0; }
  /// True with probability about 1/n: for choices that should stay rare (training=True).
  bool rarely(size_t n) { return pick(n) == 1; }
  template <typename T, size_t N>
  T one_of(const T (&table)[N]) { return table[pick(N)]; }
  bool exhausted() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

using Attrs = std::initializer_list<std::pair<const char*, AttrValue>>;
using Ints = std::vector<int64_t>;

/// Bounds on what a recipe may build, so that its size follows the input's length, not the
/// values of its bytes: channel counts that double step after step would otherwise ask for
/// conv weights of 2^34 elements. A value or constant past the bound fails its step.
constexpr int64_t kMaxValueElements = int64_t{1} << 18;
constexpr int64_t kMaxConstantElements = int64_t{1} << 18;

/// A float in [-1, 1) (or [0.1, 1.1) when positive) from a small LCG.
class Values {
 public:
  explicit Values(uint32_t seed) : state_(seed * 2654435761u + 1) {}
  double next(bool positive) {
    state_ = state_ * 1664525u + 1013904223u;
    double unit = static_cast<double>(state_ >> 8) / static_cast<double>(1u << 24);
    return positive ? 0.1 + unit : 2 * unit - 1;
  }

 private:
  uint32_t state_;
};

std::vector<std::byte> encode(DType dtype, const std::vector<double>& values) {
  size_t width = dtype_size(dtype);
  std::vector<std::byte> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    std::byte* out = bytes.data() + i * width;
    double v = values[i];
    auto put = [&](auto x) { std::memcpy(out, &x, sizeof x); };
    switch (dtype) {
      case DType::kFloat32: put(static_cast<float>(v)); break;
      case DType::kFloat64: put(v); break;
      case DType::kInt64: put(static_cast<int64_t>(std::lround(v * 4))); break;
      case DType::kInt32: put(static_cast<int32_t>(std::lround(v * 4))); break;
      case DType::kInt16: put(static_cast<int16_t>(std::lround(v * 4))); break;
      case DType::kInt8: put(static_cast<int8_t>(std::lround(v * 4))); break;
      case DType::kUInt8: put(static_cast<uint8_t>(std::lround(std::fabs(v) * 4))); break;
      case DType::kBool: put(static_cast<uint8_t>(v > 0)); break;
      case DType::kBFloat16: {  // the top half of the float32
        float f = static_cast<float>(v);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        put(static_cast<uint16_t>(bits >> 16));
        break;
      }
      case DType::kFloat16: put(static_cast<uint16_t>(v > 0 ? 0x3C00 : 0xBC00)); break;  // ±1
    }
  }
  return bytes;
}

class Builder {
 public:
  explicit Builder(Recipe& recipe) : r_(recipe), g_(std::make_unique<Graph>()) {}

  std::unique_ptr<Graph> build(int max_steps) {
    add_placeholders();
    for (int step = 0; step < max_steps && !r_.exhausted(); ++step) {
      size_t kept = values_.size();
      if (run_step()) {
        step_nodes_.clear();
      } else {
        rollback();
        values_.resize(kept);  // a motif may have kept a value before it failed
      }
    }
    set_outputs();
    return std::move(g_);
  }

 private:
  // ** values and constants **
  Node* value() {
    // Mostly the newest value (chains, which the rules match); otherwise any earlier one.
    uint8_t b = r_.byte();
    if (b < 128) return values_.back();
    return values_[b % values_.size()];
  }
  static const TensorType& type(const Node* n) { return *n->type(); }
  /// dim `i` of `n` (negative counts from the end) if the rank allows and it is concrete.
  static std::optional<int64_t> dim(const Node* n, int64_t i) {
    int64_t rank = type(n).rank();
    if (i < 0) i += rank;
    if (i < 0 || i >= rank || !is_concrete(type(n).shape[static_cast<size_t>(i)])) return std::nullopt;
    return type(n).shape[static_cast<size_t>(i)];
  }
  /// A float dtype for constants read together with `like`.
  static DType constant_dtype(const Node* like) {
    DType d = type(like).dtype;
    return is_floating(d) ? d : DType::kFloat32;
  }

  /// A constant of `shape`; nullptr past kMaxConstantElements (call() then rejects the op).
  Node* constant(Shape shape, DType dtype, bool positive = false) {
    Values gen(r_.byte());
    std::optional<int64_t> count = element_count(shape);
    if (!count) fail("graph recipe", "constant with a symbolic shape");
    if (*count > kMaxConstantElements) return nullptr;
    std::vector<double> values(static_cast<size_t>(*count));
    for (double& v : values) v = gen.next(positive);
    std::string name = "c" + std::to_string(constant_counter_++);
    g_->constants().set(name, ConstantTensor::owned(dtype, std::move(shape), encode(dtype, values)));
    Node* n = g_->add_get_attr(name, name);
    step_nodes_.push_back(n);
    return n;
  }

  /// Adds a call with `attrs` over the defaults; nullptr when an operand is a refused
  /// constant (null), when shape inference rejects it, or when its result is past
  /// kMaxValueElements.
  Node* call(std::string_view op, std::vector<Input> inputs, Attrs attrs = {}) {
    const OpSchema* schema = OpRegistry::get().find(op);
    if (schema == nullptr) fail("graph recipe", "no op " + std::string(op));
    for (const Input& in : inputs) {
      if (in.is_node() && in.node == nullptr) return nullptr;
    }
    if (!schema->has_variadic()) {
      while (inputs.size() < schema->operands.size()) inputs.push_back(Input::none());
    }
    std::vector<AttrValue> values = Graph::default_attrs(*schema);
    for (const auto& [name, v] : attrs) {
      int index = schema->attr_index(name);
      std::string err;
      std::optional<AttrValue> coerced =
          index < 0 ? std::nullopt : coerce_attr(schema->attrs[static_cast<size_t>(index)], v, &err);
      if (!coerced) fail("graph recipe", std::string(op) + "." + name + ": " + err);
      values[static_cast<size_t>(index)] = std::move(*coerced);
    }
    Node* n = g_->add_call(*schema, std::move(inputs), std::move(values), op);
    step_nodes_.push_back(n);
    std::string error;
    std::optional<TensorType> t = infer_node_type(*n, &error);
    if (!t) return nullptr;
    std::optional<int64_t> count = element_count(t->shape);
    if (count && *count > kMaxValueElements) return nullptr;
    n->meta().set_type(std::move(*t));
    return n;
  }

  void rollback() {
    for (auto it = step_nodes_.rbegin(); it != step_nodes_.rend(); ++it) {
      if ((*it)->is(NodeKind::kGetAttr)) g_->constants().erase((*it)->target());
      g_->erase(*it);
    }
    step_nodes_.clear();
  }

  /// Records a step's result as a value later steps may read; false for a rejected step.
  bool keep(Node* n) {
    if (n == nullptr) return false;
    values_.push_back(n);
    return true;
  }

  // ** the graph's inputs and outputs **
  void add_placeholders() {
    static const Dim kChannels[] = {1, 2, 3, 4, 8, 16};
    static const Dim kSpatial[] = {1, 2, 3, 4, 5, 7, 8};
    static const Dim kFeatures[] = {1, 2, 3, 4, 8, 16, 32};
    int count = 1 + static_cast<int>(r_.pick(2));
    for (int i = 0; i < count; ++i) {
      Dim batch = std::vector<Dim>{1, 2, dim_symbol("N"), 3}[r_.pick(4)];
      Shape shape;
      switch (r_.pick(4)) {
        case 0: shape = {batch, r_.one_of(kChannels), r_.one_of(kSpatial), r_.one_of(kSpatial)}; break;
        case 1: shape = {batch, r_.one_of(kFeatures)}; break;
        case 2: shape = {batch, r_.one_of(kSpatial), r_.one_of(kFeatures)}; break;
        default: shape = {r_.one_of(kFeatures)}; break;
      }
      // Mostly float32, the dtype the runtime and the folder support; others reach the
      // rules' dtype conditions and the folder's "not supported" path.
      static const DType kDTypes[] = {DType::kFloat64, DType::kInt64, DType::kFloat16};
      uint8_t d = r_.byte();
      DType dtype = d < 3 ? kDTypes[d] : DType::kFloat32;
      values_.push_back(g_->add_placeholder("x" + std::to_string(i), TensorType{dtype, shape}));
    }
  }

  void set_outputs() {
    std::vector<Input> outputs;
    for (Node* n : values_) {
      if (n->is(NodeKind::kCallFunction) && n->users().empty()) outputs.push_back(Input::of(n));
    }
    if (outputs.empty()) outputs.push_back(Input::of(values_.back()));
    g_->set_output(std::move(outputs));
  }

  // ** steps **
  bool run_step() {
    switch (r_.pick(13)) {
      case 0: case 1: return unary(value());
      case 2: case 3: return binary(value());
      case 4: return conv(value(), /*with_bias=*/r_.flag()) != nullptr;
      case 5: return keep(linear(value()));
      case 6: return matmul(value());
      case 7: return keep(batch_norm(value()));
      case 8: return norm(value());
      case 9: return pool(value());
      case 10: return reduce(value());
      case 11: return shape_op(value());
      default: return motif(value());
    }
  }

  Node* activation(Node* x, size_t which) {
    switch (which) {
      case 0: return call("relu", {Input::of(x)});
      case 1: return call("relu6", {Input::of(x)});
      case 2: return call("hardtanh", {Input::of(x)}, {{"min_val", 0.0}, {"max_val", 6.0}});
      case 3: return call("leaky_relu", {Input::of(x)}, {{"negative_slope", 0.2}});
      case 4: return call("elu", {Input::of(x)}, {{"alpha", 0.5}});
      case 5: return call("hardswish", {Input::of(x)});
      case 6: return call("hardsigmoid", {Input::of(x)});
      case 7: return call("silu", {Input::of(x)});
      case 8: return call("sigmoid", {Input::of(x)});
      case 9: return call("tanh", {Input::of(x)});
      case 10: return call("gelu", {Input::of(x)}, {{"approximate", std::string("tanh")}});
      case 11: return call("clamp", {Input::of(x)}, {{"min", -1.0}, {"max", 1.0}});
      default: return call("gelu", {Input::of(x)});
    }
  }

  bool unary(Node* x) {
    static const char* const kPlain[] = {"softplus", "sqrt", "rsqrt", "exp", "log", "neg",
                                         "reciprocal", "abs", "erf", "contiguous", "clone"};
    switch (r_.pick(4)) {
      case 0: return keep(activation(x, r_.pick(13)));
      case 1: return keep(call(r_.one_of(kPlain), {Input::of(x)}));
      case 2: {
        static const double kP[] = {0.0, 0.1, 0.5};
        return keep(call("dropout", {Input::of(x)}, {{"p", r_.one_of(kP)}, {"training", r_.rarely(6)}}));
      }
      default: {
        static const std::pair<AttrValue, AttrValue> kBounds[] = {
            {0.0, 6.0}, {0.0, std::monostate{}}, {std::monostate{}, 6.0}, {int64_t{-1}, int64_t{1}}};
        auto [lo, hi] = r_.one_of(kBounds);
        return keep(call("clamp", {Input::of(x)}, {{"min", lo}, {"max", hi}}));
      }
    }
  }

  /// A constant `x` can be combined with elementwise: x's shape (symbolic dims as 1) or
  /// per-channel ([C, 1, 1] for a 4-d x, the last dim otherwise).
  Node* operand_like(Node* x, bool per_channel) {
    Shape shape = type(x).shape;
    for (Dim& d : shape) {
      if (!is_concrete(d)) d = 1;
    }
    if (per_channel && !shape.empty()) shape = shape.size() == 4 ? Shape{shape[1], 1, 1} : Shape{shape.back()};
    return constant(shape, constant_dtype(x));
  }

  Scalar scalar() {
    // The constants of the standard rules' patterns, and a few that are near them.
    static const double kScalars[] = {0.0, 1.0, 2.0, 3.0, 6.0, 0.5, -1.0, 0.7071067811865476,
                                      1.4142135623730951, 0.044715, 0.7978845608028654, 1e-7};
    double v = r_.one_of(kScalars);
    return Scalar{v, v == std::floor(v) && r_.flag()};
  }

  bool binary(Node* x) {
    static const char* const kOps[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum"};
    std::string op = r_.one_of(kOps);
    bool scalar_ok = op != "maximum" && op != "minimum";
    Input other;
    switch (r_.pick(5)) {
      case 0: other = scalar_ok ? Input::of(scalar()) : Input::of(x); break;
      case 1: other = Input::of(value()); break;
      case 2: other = Input::of(operand_like(x, false)); break;
      case 3: other = Input::of(operand_like(x, true)); break;
      default: other = Input::of(x); break;
    }
    std::vector<Input> inputs = {Input::of(x), other};
    if (r_.flag()) std::swap(inputs[0], inputs[1]);
    if (op == "add" || op == "sub") {
      return keep(call(op, inputs, {{"alpha", r_.rarely(4) ? int64_t{2} : int64_t{1}}}));
    }
    if (op == "div") {
      static const AttrValue kModes[] = {std::monostate{}, std::monostate{}, std::string("trunc"),
                                         std::string("floor")};
      return keep(call(op, inputs, {{"rounding_mode", r_.one_of(kModes)}}));
    }
    return keep(call(op, inputs));
  }

  /// conv2d on a 4-d x with a concrete channel count; `same` keeps the spatial size and the
  /// channel count (for residual adds).
  Node* conv(Node* x, bool with_bias, bool same = false) {
    std::optional<int64_t> c = dim(x, 1);
    if (type(x).rank() != 4 || !c) return nullptr;
    int64_t groups = r_.pick(3) == 1 ? *c : 1;
    static const int64_t kOut[] = {1, 2, 4, 8};
    int64_t out = same ? *c : groups > 1 ? *c * (1 + static_cast<int64_t>(r_.pick(2))) : r_.one_of(kOut);
    static const int64_t kKernel[] = {1, 2, 3};
    int64_t k = same ? 1 + 2 * static_cast<int64_t>(r_.pick(2)) : r_.one_of(kKernel);
    static const int64_t kStride[] = {1, 1, 2};
    static const int64_t kPad[] = {0, 1, 2};
    static const int64_t kDilation[] = {1, 1, 2};
    int64_t stride = same ? 1 : r_.one_of(kStride);
    int64_t pad = same ? k / 2 : r_.one_of(kPad);
    int64_t dilation = same ? 1 : r_.one_of(kDilation);
    DType dt = constant_dtype(x);
    Node* w = constant({out, *c / groups, k, k}, dt);
    Input b = with_bias ? Input::of(constant({out}, dt)) : Input::none();
    return keep_node(call("conv2d", {Input::of(x), Input::of(w), b},
                          {{"stride", stride}, {"padding", pad}, {"dilation", dilation}, {"groups", groups}}));
  }

  Node* keep_node(Node* n) { return keep(n) ? n : nullptr; }

  Node* linear(Node* x) {
    std::optional<int64_t> f = dim(x, -1);
    if (!f) return nullptr;
    static const int64_t kOut[] = {1, 2, 4, 8, 16};
    int64_t out = r_.one_of(kOut);
    DType dt = constant_dtype(x);
    Node* w = constant({out, *f}, dt);
    Input b = r_.flag() ? Input::of(constant({out}, dt)) : Input::none();
    return call("linear", {Input::of(x), Input::of(w), b});
  }

  bool matmul(Node* x) {
    std::optional<int64_t> f = dim(x, -1);
    if (!f) return false;
    Node* other = r_.flag() ? constant({*f, 1 + static_cast<int64_t>(r_.pick(8))}, constant_dtype(x)) : value();
    return keep(call("matmul", {Input::of(x), Input::of(other)}));
  }

  Node* batch_norm(Node* x) {
    std::optional<int64_t> c = dim(x, 1);
    if (type(x).rank() < 2 || !c) return nullptr;
    DType dt = constant_dtype(x);
    Node* mean = constant({*c}, dt);
    Node* var = constant({*c}, dt, /*positive=*/true);
    Input gamma = r_.flag() ? Input::of(constant({*c}, dt)) : Input::none();
    Input beta = r_.flag() ? Input::of(constant({*c}, dt)) : Input::none();
    static const double kEps[] = {1e-5, 1e-3};
    return call("batch_norm", {Input::of(x), Input::of(mean), Input::of(var), gamma, beta},
                {{"training", r_.rarely(8)}, {"eps", r_.one_of(kEps)}});
  }

  bool norm(Node* x) {
    switch (r_.pick(3)) {
      case 0: {
        static const int64_t kDims[] = {-1, 1, 0, 2};
        return keep(call(r_.flag() ? "softmax" : "log_softmax", {Input::of(x)}, {{"dim", r_.one_of(kDims)}}));
      }
      default: {
        Shape normalized;
        int64_t n = 1 + static_cast<int64_t>(r_.pick(2));
        for (int64_t i = -n; i < 0; ++i) {
          std::optional<int64_t> d = dim(x, i);
          if (!d) return false;
          normalized.push_back(*d);
        }
        DType dt = constant_dtype(x);
        Input w = r_.flag() ? Input::of(constant(normalized, dt)) : Input::none();
        Input b = r_.flag() ? Input::of(constant(normalized, dt)) : Input::none();
        return keep(call("layer_norm", {Input::of(x), w, b}, {{"normalized_shape", Ints(normalized)}}));
      }
    }
  }

  bool pool(Node* x) {
    static const int64_t kKernel[] = {1, 2, 3};
    static const AttrValue kStride[] = {Ints{}, int64_t{1}, int64_t{2}};
    switch (r_.pick(3)) {
      case 0:
        return keep(call("max_pool2d", {Input::of(x)},
                         {{"kernel_size", r_.one_of(kKernel)}, {"stride", r_.one_of(kStride)},
                          {"padding", int64_t(r_.pick(2))}, {"ceil_mode", r_.flag()}}));
      case 1:
        return keep(call("avg_pool2d", {Input::of(x)},
                         {{"kernel_size", r_.one_of(kKernel)}, {"stride", r_.one_of(kStride)},
                          {"padding", int64_t(r_.pick(2))}, {"ceil_mode", r_.flag()},
                          {"count_include_pad", r_.flag()}}));
      default:
        return keep(call(r_.flag() ? "adaptive_avg_pool2d" : "adaptive_max_pool2d", {Input::of(x)},
                         {{"output_size", int64_t(1 + r_.pick(2))}}));
    }
  }

  bool reduce(Node* x) {
    static const AttrValue kDims[] = {std::monostate{}, Ints{-1}, Ints{1}, Ints{2, 3}, Ints{0}};
    static const char* const kOps[] = {"mean", "sum", "amax"};
    std::string op = r_.one_of(kOps);
    AttrValue dims = r_.one_of(kDims);
    if (op == "amax" && is_none(dims)) dims = Ints{};
    return keep(call(op, {Input::of(x)}, {{"dim", dims}, {"keepdim", r_.flag()}}));
  }

  bool shape_op(Node* x) {
    const Shape& shape = type(x).shape;
    int64_t rank = type(x).rank();
    switch (r_.pick(7)) {
      case 0: return keep(call("flatten", {Input::of(x)}, {{"start_dim", int64_t(r_.pick(2))}}));
      case 1: {
        Ints target;
        switch (r_.pick(4)) {
          case 0: target = {-1}; break;
          case 1: target = {rank > 0 && is_concrete(shape[0]) ? shape[0] : 1, -1}; break;
          case 2: target.push_back(1); [[fallthrough]];
          default:  // the same shape, a symbolic dim as -1: the cleanup rules drop it
            for (Dim d : shape) target.push_back(is_concrete(d) ? d : -1);
        }
        return keep(call("reshape", {Input::of(x)}, {{"shape", target}}));
      }
      case 2: {
        Ints perm;
        for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
        switch (r_.pick(4)) {
          case 0: std::reverse(perm.begin(), perm.end()); break;
          case 1: if (rank == 4) perm = {0, 2, 3, 1}; break;
          case 2: if (rank == 4) perm = {0, 3, 1, 2}; break;
          default: if (rank >= 2) std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
        }
        return keep(call("permute", {Input::of(x)}, {{"dims", perm}}));
      }
      case 3: {
        static const std::pair<int64_t, int64_t> kPairs[] = {{1, 2}, {2, 1}, {0, 1}, {-1, -2}};
        auto [a, b] = r_.one_of(kPairs);
        return keep(call("transpose", {Input::of(x)}, {{"dim0", a}, {"dim1", b}}));
      }
      case 4: {
        static const int64_t kDims[] = {0, 1, -1};
        return keep(call("unsqueeze", {Input::of(x)}, {{"dim", r_.one_of(kDims)}}));
      }
      case 5: {
        static const AttrValue kDims[] = {std::monostate{}, int64_t{0}, int64_t{1}, int64_t{-1}};
        return keep(call("squeeze", {Input::of(x)}, {{"dim", r_.one_of(kDims)}}));
      }
      default: {
        static const int64_t kDims[] = {0, 1, -1};
        Node* other = r_.flag() ? x : value();
        return keep(call("cat", {Input::of(x), Input::of(other)}, {{"dim", r_.one_of(kDims)}}));
      }
    }
  }

  bool motif(Node* x) {
    auto in = [](Node* n) { return Input::of(n); };
    auto num = [](double v) { return Input::of(Scalar{v, false}); };
    switch (r_.pick(9)) {
      case 0: {  // x * sigmoid(x)
        Node* s = call("sigmoid", {in(x)});
        return s && keep(r_.flag() ? call("mul", {in(x), in(s)}) : call("mul", {in(s), in(x)}));
      }
      case 1:
      case 2: {  // x * 0.5 * (1 + erf(x / sqrt 2)), or erf(x * 1/sqrt 2)
        Node* scaled = r_.flag() ? call("div", {in(x), num(1.4142135623730951)})
                                 : call("mul", {in(x), num(0.7071067811865476)});
        Node* e = scaled ? call("erf", {in(scaled)}) : nullptr;
        Node* one = e ? call("add", {num(1.0), in(e)}) : nullptr;
        Node* half = one ? call("mul", {in(x), num(0.5)}) : nullptr;
        return half && keep(call("mul", {in(half), in(one)}));
      }
      case 3: {  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
        Node* cube = call("pow", {in(x), num(3.0)});
        Node* c = cube ? call("mul", {num(0.044715), in(cube)}) : nullptr;
        Node* sum = c ? call("add", {in(x), in(c)}) : nullptr;
        Node* inner = sum ? call("mul", {num(0.7978845608028654), in(sum)}) : nullptr;
        Node* t = inner ? call("tanh", {in(inner)}) : nullptr;
        Node* one = t ? call("add", {num(1.0), in(t)}) : nullptr;
        Node* half = one ? call("mul", {num(0.5), in(x)}) : nullptr;
        return half && keep(call("mul", {in(half), in(one)}));
      }
      case 4: {  // x * relu6(x + 3) / 6
        Node* p = call("add", {in(x), num(3.0)});
        Node* r6 = p ? call("relu6", {in(p)}) : nullptr;
        Node* m = r6 ? call("mul", {in(x), in(r6)}) : nullptr;
        return m && keep(call("div", {in(m), num(6.0)}));
      }
      case 5: {  // matmul(x, W) + b
        std::optional<int64_t> f = dim(x, -1);
        if (!f) return false;
        int64_t out = 1 + static_cast<int64_t>(r_.pick(8));
        Node* w = constant({*f, out}, constant_dtype(x));
        Node* mm = call("matmul", {in(x), in(w)});
        if (mm == nullptr) return false;
        Node* b = constant({out}, constant_dtype(x));
        return keep(r_.flag() ? call("add", {in(mm), in(b)}) : call("add", {in(b), in(mm)}));
      }
      case 6: {  // conv -> batch_norm [-> activation]
        Node* y = conv(x, r_.flag());
        Node* bn = y ? batch_norm(y) : nullptr;
        if (bn == nullptr) return false;
        return keep(r_.flag() ? activation(bn, r_.pick(13)) : bn);
      }
      case 7: {  // activation(conv(x) + x), ResNet's residual
        Node* y = conv(x, r_.flag(), /*same=*/true);
        Node* sum = y ? (r_.flag() ? call("add", {in(y), in(x)}) : call("add", {in(x), in(y)})) : nullptr;
        if (sum == nullptr) return false;
        return keep(r_.flag() ? activation(sum, r_.pick(13)) : sum);
      }
      default: {  // activation(linear(x))
        Node* y = linear(x);
        return y && keep(activation(y, r_.pick(13)));
      }
    }
  }

  Recipe& r_;
  std::unique_ptr<Graph> g_;
  std::vector<Node*> values_;      // placeholders and kept step results
  std::vector<Node*> step_nodes_;  // nodes of the current step, erased if it fails
  int constant_counter_ = 0;
};

}  // namespace

std::unique_ptr<Graph> graph_from_recipe(const uint8_t* data, size_t size, int max_steps) {
  Recipe recipe(data, size);
  return Builder(recipe).build(max_steps);
}

}  // namespace graft::fuzz
