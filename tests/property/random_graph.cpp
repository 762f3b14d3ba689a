// The random graph generator (see random_graph.h). A GraphGen grows one graph block by block:
// each block reads a value of the pool (usually the newest, so chains form; sometimes an older
// one, so values get several users), emits a few ops the standard rules know, and adds its
// result to the pool. Which rules a block targets is in its name; the near-misses that must
// NOT be rewritten (a shared interior value, an output inside a pattern, a bias of the wrong
// rank, a transpose of other dims) are each taken with a small probability.
//
// Numbers stay near unit scale so that fp32 comparisons before/after a rewrite are meaningful:
// weights are uniform in +-sqrt(3 / fan_in) (variance 1 / fan_in, as torch's default init
// keeps a layer's output variance near its input's), batch-norm's running_var is in [0.5, 1.5)
// and scalar factors in +-[0.5, 2).
#include "tests/property/random_graph.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "tests/property/rng.h"

namespace graft::testing {
namespace {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;
using Ints = std::vector<int64_t>;

/// Thrown when an op rejects what the generator built; random_graph() turns it into an error.
struct GeneratorBug : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const Shape& shape_of(const Node* n) { return n->type()->shape; }
int64_t rank_of(const Node* n) { return static_cast<int64_t>(shape_of(n).size()); }

class GraphGen {
 public:
  explicit GraphGen(uint64_t seed) : seed_(seed), rng_(seed), graph_(std::make_unique<Graph>()) {}

  std::unique_ptr<Graph> run(const RandomGraphOptions& options) {
    add_inputs();
    int blocks = options.min_blocks + rng_.below(options.max_blocks - options.min_blocks + 1);
    for (int i = 0; i < blocks; ++i) add_block();
    maybe_add_layer_norm(seed_);
    add_outputs();
    return std::move(graph_);
  }

 private:
  // ** building nodes **

  Node* input(Shape shape) {
    std::string name = "x" + std::to_string(inputs_++);
    return graph_->add_placeholder(name, TensorType{DType::kFloat32, std::move(shape)});
  }

  /// A constant of `shape` with elements uniform in [lo, hi), or +-[lo, hi) when `signed_`.
  Node* param(const std::string& hint, Shape shape, double lo, double hi, bool signed_ = false) {
    int64_t count = 1;
    for (Dim d : shape) count *= d;
    std::vector<float> values(static_cast<size_t>(count));
    for (float& v : values) {
      double u = rng_.uniform(lo, hi);
      v = static_cast<float>(signed_ && rng_.chance(0.5) ? -u : u);
    }
    std::string name =
        graph_->constants().unique_name("p" + std::to_string(params_++) + "." + hint);
    graph_->constants().set(name, ConstantTensor::from_floats(std::move(shape), values));
    std::string node_name = name;
    std::replace(node_name.begin(), node_name.end(), '.', '_');
    return graph_->add_get_attr(node_name, name);
  }

  /// Weights of fan-in `fan_in`: variance 1 / fan_in.
  Node* weight(Shape shape, int64_t fan_in) {
    double bound = std::sqrt(3.0 / static_cast<double>(fan_in));
    return param("weight", std::move(shape), -bound, bound);
  }

  /// A call of `op` on `inputs` (one per schema operand; missing trailing ones are None) with
  /// `attrs` by name over the defaults, typed by its shape function.
  Node* op(const std::string& name, std::vector<Input> inputs, const AttrList& attrs = {}) {
    const OpSchema* schema = OpRegistry::get().find(name);
    if (schema == nullptr) throw GeneratorBug("no op '" + name + "'");
    if (!schema->has_variadic() && inputs.size() < schema->operands.size()) {
      inputs.resize(schema->operands.size());
    }
    std::vector<AttrValue> values = Graph::default_attrs(*schema);
    for (const auto& [attr, value] : attrs) {
      int index = schema->attr_index(attr);
      std::string err;
      std::optional<AttrValue> v =
          index < 0 ? std::nullopt : coerce_attr(schema->attrs[index], value, &err);
      if (!v) throw GeneratorBug(name + "'s attribute " + attr + ": " + err);
      values[index] = std::move(*v);
    }
    Node* node = graph_->add_call(*schema, std::move(inputs), std::move(values), name);
    std::string err;
    std::optional<TensorType> type = infer_node_type(*node, &err);
    if (!type) throw GeneratorBug(name + " rejects its inputs: " + err);
    node->meta().set_type(std::move(type));
    return node;
  }

  static Input in(Node* n) { return Input::of(n); }
  static Input scalar(double v) { return Input::of(Scalar{v, false}); }
  static Input none() { return Input::none(); }

  /// `a op b` or, for a commutative op, sometimes `b op a`: rules must match either order.
  Node* binary(const std::string& name, Input a, Input b) {
    if ((name == "add" || name == "mul") && rng_.chance(0.5)) std::swap(a, b);
    return op(name, {a, b});
  }

  // ** the pool of values **

  /// The operand of the next block: usually the newest value, so that blocks chain.
  Node* operand() {
    if (rng_.chance(0.75)) return pool_.back();
    return pool_[static_cast<size_t>(rng_.below(static_cast<int>(pool_.size())))];
  }

  /// A pool value of `shape` other than `not_this` (a residual), or nullptr.
  Node* same_shape(const Shape& shape, const Node* not_this) {
    std::vector<Node*> found;
    for (Node* n : pool_) {
      if (n != not_this && shape_of(n) == shape) found.push_back(n);
    }
    return found.empty() ? nullptr
                         : found[static_cast<size_t>(rng_.below(static_cast<int>(found.size())))];
  }

  /// Sometimes lets later blocks (or the output) read an interior value of a pattern, which
  /// must then block the rewrite (uses(y) == 1, or the driver's interior-value check).
  void maybe_share(Node* interior) {
    if (rng_.chance(0.08)) pool_.push_back(interior);
    if (rng_.chance(0.06)) extra_outputs_.push_back(interior);
  }

  // ** inputs, blocks, outputs **

  void add_inputs() {
    Node* x;
    if (rng_.chance(0.65)) {
      int64_t c = rng_.pick({3, 4, 6, 8});
      int64_t hw = 4 + rng_.below(5);
      x = input({1 + rng_.below(2), c, hw, hw + rng_.below(2)});
    } else if (rng_.chance(0.6)) {
      x = input({1 + rng_.below(4), rng_.pick({4, 8, 12, 16})});
    } else {
      x = input({1 + rng_.below(2), 2 + rng_.below(3), rng_.pick({4, 8, 12})});
    }
    pool_.push_back(x);
    // A second input of the same shape: residuals from outside, two graph inputs.
    if (rng_.chance(0.2)) pool_.push_back(input(shape_of(x)));
  }

  void add_block() {
    Node* x = operand();
    Node* y = rank_of(x) == 4 ? image_block(x) : vector_block(x);
    pool_.push_back(y);
  }

  Node* image_block(Node* x) {
    switch (rng_.weighted({6, 2, 2, 2, 3, 1, 2, 2, 1, 2})) {
      case 0: return conv_block(x);
      case 1: return activation(x);
      case 2: return identity(x);
      case 3: return scale(x);
      case 4: return layout(x);
      case 5: return pool(x);
      case 6: return residual(x);
      case 7: return to_vector(x);
      case 8: return attention_block(x);  // over the last two dims: (N, C) heads of H x W
      default: return other_conv_block(x);
    }
  }

  Node* vector_block(Node* x) {
    switch (rng_.weighted({5, 3, 2, 2, 2, 3, 1, 2, 3})) {
      case 0: return linear_block(x);
      case 1: return matmul_block(x);
      case 2: return activation(x);
      case 3: return identity(x);
      case 4: return scale(x);
      case 5: return layout(x);
      case 6: return residual(x);
      case 7:
        return rng_.chance(0.5) ? op("softmax", {in(x)}, {{"dim", int64_t{-1}}})
                                : op("tanh", {in(x)});
      default: return attention_block(x);
    }
  }

  void add_outputs() {
    std::vector<Input> outputs;
    auto add = [&](Node* n) {
      for (const Input& o : outputs) {
        if (o.node == n) return;
      }
      outputs.push_back(in(n));
    };
    for (Node* n : graph_->nodes()) {
      if (n->users().empty() && !n->is(NodeKind::kGetAttr)) add(n);
    }
    for (Node* n : extra_outputs_) add(n);
    // torch.fx allows a value twice among the outputs, and an input as an output; a rewrite
    // can also make two outputs one value (dropout(x), x -> x, x).
    if (rng_.chance(0.05)) outputs.push_back(outputs.front());
    if (rng_.chance(0.05)) outputs.push_back(in(graph_->placeholders().front()));
    graph_->set_output(std::move(outputs));
  }

  // ** blocks of the image (N, C, H, W) vocabulary **

  /// conv2d (bias or not; groups 1, 2 or depthwise; 1x1 or 3x3; stride 1 or 2; dilation 1 or 2),
  /// then maybe batch-norm, an activation, a residual add (+ relu) and dropout: fold_bn and
  /// fuse_post_ops.
  Node* conv_block(Node* x) {
    const Shape& s = shape_of(x);
    int64_t c = s[1], h = std::min(s[2], s[3]);
    int64_t groups = 1, out = rng_.pick({4, 6, 8});
    switch (rng_.below(4)) {
      case 0:  // depthwise
        groups = c;
        out = c * (rng_.chance(0.7) ? 1 : 2);
        break;
      case 1:
        if (c % 2 == 0) {
          groups = 2;
          out = rng_.pick({4, 6, 8});
        }
        break;
      default:  // sometimes the input's channels: a residual can follow
        if (rng_.chance(0.4)) out = c;
        break;
    }
    int64_t k = h >= 3 && rng_.chance(0.7) ? 3 : 1;
    int64_t padding = k == 3 && rng_.chance(0.8) ? 1 : 0;
    int64_t stride = h >= 4 && rng_.chance(0.2) ? 2 : 1;
    int64_t dilation = k == 3 && h >= 5 && rng_.chance(0.15) ? 2 : 1;
    padding *= dilation;
    Node* w = weight({out, c / groups, k, k}, c / groups * k * k);
    Input b = rng_.chance(0.5) ? in(param("bias", {out}, -0.5, 0.5)) : none();
    Node* conv =
        op("conv2d", {in(x), in(w), b},
           {{"stride", stride}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}});
    Node* y = conv;
    if (rng_.chance(0.5)) {
      maybe_share(y);
      y = batch_norm(y, out);
    }
    return activation_residual_dropout(y, 0.2);
  }

  /// A conv1d, conv3d or transposed convolution (1-, 2- or 3-d) that keeps H x W, usually
  /// followed by batch-norm: the fold_*_bn rules of those ops. conv1d runs over the image's
  /// rows flattened (N, C, H * W), the 3-d ones over (N, C, 1, H, W); a grouped transposed
  /// convolution, whose batch-norm must stay, is the near-miss.
  Node* other_conv_block(Node* x) {
    const Shape s = shape_of(x);
    const int64_t c = s[1], out = rng_.pick({4, 6, 8});
    const int kind = rng_.below(5);  // conv1d, conv3d, conv_transpose1d, 2d, 3d
    const bool transposed = kind >= 2;
    const int64_t spatial = kind == 0 || kind == 2 ? 1 : kind == 3 ? 2 : 3;
    const int64_t groups = transposed && c % 2 == 0 && out % 2 == 0 && rng_.chance(0.15) ? 2 : 1;
    // A 3-d kernel is 1 deep over the one-deep volume; padding 1 keeps every size.
    Ints kernel(static_cast<size_t>(spatial), 3), padding(static_cast<size_t>(spatial), 1);
    if (spatial == 3) kernel[0] = 1, padding[0] = 0;
    Shape w_shape = transposed ? Shape{c, out / groups} : Shape{out, c};
    for (int64_t k : kernel) w_shape.push_back(k);
    int64_t fan_in = c / groups;
    for (int64_t k : kernel) fan_in *= k;
    Node* w = weight(w_shape, fan_in);
    Input b = rng_.chance(0.5) ? in(param("bias", {out}, -0.5, 0.5)) : none();
    Node* v = x;
    if (spatial == 1) v = op("flatten", {in(x)}, {{"start_dim", int64_t{2}}});
    if (spatial == 3) v = op("unsqueeze", {in(x)}, {{"dim", int64_t{2}}});
    static const char* const kOps[] = {"conv1d", "conv3d", "conv_transpose1d",
                                       "conv_transpose2d", "conv_transpose3d"};
    AttrList attrs = {{"padding", padding}};
    if (groups > 1) attrs.push_back({"groups", groups});
    Node* y = op(kOps[kind], {in(v), in(w), b}, attrs);
    if (rng_.chance(0.7)) {
      maybe_share(y);
      y = batch_norm(y, out);
    }
    return op("reshape", {in(y)}, {{"shape", Ints{s[0], out, s[2], s[3]}}});
  }

  /// Inference batch-norm over `channels`: running_var positive, affine almost always.
  Node* batch_norm(Node* x, int64_t channels) {
    Node* mean = param("running_mean", {channels}, -0.5, 0.5);
    Node* var = param("running_var", {channels}, 0.5, 1.5);
    bool affine = rng_.chance(0.9);
    Input gamma = affine ? in(param("weight", {channels}, 0.5, 1.5, true)) : none();
    Input beta = affine ? in(param("bias", {channels}, -0.5, 0.5)) : none();
    return op("batch_norm", {in(x), in(mean), in(var), gamma, beta},
              {{"training", false}, {"eps", rng_.chance(0.5) ? 1e-5 : 1e-3}});
  }

  Node* pool(Node* x) {
    const Shape& s = shape_of(x);
    if (std::min(s[2], s[3]) >= 2 && rng_.chance(0.5)) {
      return op("max_pool2d", {in(x)}, {{"kernel_size", int64_t{2}}});
    }
    return op("avg_pool2d", {in(x)},
              {{"kernel_size", int64_t{3}}, {"stride", int64_t{1}}, {"padding", int64_t{1}}});
  }

  /// (N, C, H, W) -> (N, F): global average pooling + flatten, a mean, or a plain flatten.
  Node* to_vector(Node* x) {
    const Shape& s = shape_of(x);
    switch (rng_.below(3)) {
      case 0: {
        Node* p = op("adaptive_avg_pool2d", {in(x)}, {{"output_size", int64_t{1}}});
        return op("flatten", {in(p)}, {{"start_dim", int64_t{1}}});
      }
      case 1:
        return op("mean", {in(x)}, {{"dim", Ints{2, 3}}});
      default:
        if (s[1] * s[2] * s[3] > 96) return op("mean", {in(x)}, {{"dim", Ints{-1, -2}}});
        return op("reshape", {in(x)}, {{"shape", Ints{s[0], -1}}});
    }
  }

  // ** blocks of the vector (…, F) vocabulary **

  /// linear (bias or not), then maybe batch-norm (2-d), an activation, a residual add, dropout:
  /// fold_linear_bn and the linear_* post-op fusions.
  Node* linear_block(Node* x) {
    int64_t f = shape_of(x).back();
    int64_t out = rng_.chance(0.35) ? f : rng_.pick({4, 8, 12, 16});
    Node* w = weight({out, f}, f);
    Input b = rng_.chance(0.6) ? in(param("bias", {out}, -0.5, 0.5)) : none();
    Node* y = op("linear", {in(x), in(w), b});
    if (rng_.chance(0.4)) {
      // On a 3-d (N, T, F) value batch-norm's channels are T, not the features: fold_linear_bn
      // must not fire there.
      maybe_share(y);
      y = batch_norm(y, shape_of(y)[1]);
    }
    return activation_residual_dropout(y, 0.1);
  }

  /// What may follow a conv or linear layer (and its batch-norm): an activation, a residual
  /// add, an eval-mode dropout of probability `p`, each with the interior value sometimes shared.
  Node* activation_residual_dropout(Node* y, double p) {
    if (rng_.chance(0.6)) {
      maybe_share(y);
      y = activation(y);
    }
    if (rng_.chance(0.3)) {
      maybe_share(y);
      y = residual(y);
    }
    if (rng_.chance(0.1)) y = op("dropout", {in(y)}, {{"p", p}, {"training", false}});
    return y;
  }

  /// matmul(x, w) + b (either order): matmul_add_to_linear. Sometimes a near-miss: a 2-d bias
  /// or a weight that is an input, which the rule must leave alone.
  Node* matmul_block(Node* x) {
    int64_t f = shape_of(x).back();
    int64_t out = rng_.pick({4, 8, 12});
    Node* w = rng_.chance(0.1) ? input({f, out}) : weight({f, out}, f);
    Node* mm = op("matmul", {in(x), in(w)});
    if (rng_.chance(0.1)) return mm;
    maybe_share(mm);
    Shape bias_shape = rng_.chance(0.1) ? Shape{1, out} : Shape{out};
    Node* y = binary("add", in(mm), in(param("bias", bias_shape, -0.5, 0.5)));
    return rng_.chance(0.4) ? activation(y) : y;
  }

  /// Self-attention over x's rows (…, L, F): softmax(x @ (x W)^T, scaled by `* c`, `/ d` or
  /// not, plus a float mask, a causal fill of -inf or a finite number (masked_fill or where) or
  /// neither) @ x, with the last dims counted from the end or the front: the attention rules and
  /// the spellings they normalise (keys transposed by a permute too). The near-misses: a
  /// softmax over the queries, a shared interior value.
  Node* attention_block(Node* x) {
    const int64_t rank = rank_of(x);
    if (rank < 2) return x;
    const int64_t f = shape_of(x).back(), l = shape_of(x)[shape_of(x).size() - 2];
    Node* k = op("matmul", {in(x), in(weight({f, f}, f))});
    Ints last = rng_.pick({Ints{-2, -1}, Ints{-1, -2}, Ints{rank - 2, rank - 1},
                           Ints{rank - 1, rank - 2}});
    Node* kt = op("transpose", {in(k)}, {{"dim0", last[0]}, {"dim1", last[1]}});
    if (rank == 3 && rng_.chance(0.3)) {  // k.permute(0, 2, 1)
      kt = op("permute", {in(k)}, {{"dims", Ints{0, 2, 1}}});
    } else if (rank == 4 && rng_.chance(0.3)) {
      // k.permute(0, 1, 3, 2), or keys (batch, S, heads, E) permuted into (batch, heads, E, S)
      kt = rng_.chance(0.5)
               ? op("permute", {in(k)}, {{"dims", Ints{0, 1, 3, 2}}})
               : op("permute", {in(op("permute", {in(k)}, {{"dims", Ints{0, 2, 1, 3}}}))},
                    {{"dims", Ints{0, 2, 3, 1}}});
    }
    Node* s = op("matmul", {in(x), in(kt)});
    maybe_share(s);
    switch (rng_.below(3)) {
      case 0: s = binary("mul", in(s), scalar(rng_.uniform(0.2, 0.6))); break;
      case 1: s = op("div", {in(s), scalar(rng_.uniform(2.0, 4.0))}); break;
      default: break;
    }
    const double fills[] = {-INFINITY, -1e9, -1e4};
    const double fill = rng_.pick(fills);
    switch (rng_.below(5)) {
      case 0: s = binary("add", in(s), in(param("mask", {l, l}, -1.0, 0.0))); break;
      case 1: s = op("masked_fill", {in(s), in(causal_hidden(l))}, {{"value", fill}}); break;
      case 2: {  // torch.where(keep, s, fill)
        Node* keep = op("logical_not", {in(causal_hidden(l))});
        s = op("where", {in(keep), in(s), scalar(fill)});
        break;
      }
      case 3: {  // masked_fill(s, ~keep, fill)
        Node* keep = op("logical_not", {in(causal_hidden(l))});
        s = op("masked_fill", {in(s), in(op("logical_not", {in(keep)}))}, {{"value", fill}});
        break;
      }
      default: break;
    }
    const int64_t dim = rng_.chance(0.1) ? -2 : rng_.chance(0.5) ? -1 : rank - 1;
    Node* p = op("softmax", {in(s)}, {{"dim", dim}});
    maybe_share(p);
    return op("matmul", {in(p), in(x)});
  }

  /// (L, L) bool, true above the diagonal (the keys a causal mask hides), as GPT code computes
  /// it from a 0/1 lower-triangular buffer: `buf == 0` against a scalar or a tensor of zeros.
  Node* causal_hidden(int64_t l) {
    std::vector<float> tril(static_cast<size_t>(l * l), 0.0f);
    for (int64_t i = 0; i < l; ++i) {
      for (int64_t j = 0; j <= i; ++j) tril[static_cast<size_t>(i * l + j)] = 1.0f;
    }
    std::string name = graph_->constants().unique_name("p" + std::to_string(params_++) + ".tril");
    graph_->constants().set(name, ConstantTensor::from_floats({l, l}, tril));
    std::string node_name = name;
    std::replace(node_name.begin(), node_name.end(), '.', '_');
    Node* buf = graph_->add_get_attr(node_name, name);
    if (rng_.chance(0.5)) return op("eq", {in(buf), scalar(0.0)});
    return op("eq", {in(buf), in(param("zeros", {l, l}, 0.0, 0.0))});
  }

  // ** blocks of both vocabularies **

  /// An activation, as an op or written out the way the recognize rules expect it.
  Node* activation(Node* x) {
    switch (rng_.weighted({2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3})) {
      case 0: return op("relu", {in(x)});
      case 1: return op("relu6", {in(x)});
      case 2: return op("sigmoid", {in(x)});
      case 3: return op("tanh", {in(x)});
      case 4: return op("silu", {in(x)});
      case 5: return op("gelu", {in(x)});
      case 6: return op("gelu", {in(x)}, {{"approximate", std::string("tanh")}});
      case 7: return op("hardswish", {in(x)});
      case 8: return op("hardsigmoid", {in(x)});
      case 9: return op("leaky_relu", {in(x)}, {{"negative_slope", rng_.uniform(0.01, 0.3)}});
      case 10: return op("elu", {in(x)}, {{"alpha", rng_.uniform(0.5, 1.5)}});
      case 11:
        return op("hardtanh", {in(x)},
                  rng_.chance(0.5) ? AttrList{{"min_val", 0.0}, {"max_val", 6.0}}
                                   : AttrList{{"min_val", -0.5}, {"max_val", 0.5}});
      case 12: return silu_written_out(x);
      case 13: return gelu_erf_written_out(x);
      case 14: return gelu_tanh_written_out(x);
      default: return hardswish_written_out(x);
    }
  }

  /// x * sigmoid(x), either operand order: recognize_silu.
  Node* silu_written_out(Node* x) {
    // Sometimes x * sigmoid(y) of another value y of x's shape: not SiLU.
    Node* other = rng_.chance(0.1) ? same_shape(shape_of(x), x) : nullptr;
    Node* s = op("sigmoid", {in(other != nullptr ? other : x)});
    maybe_share(s);
    return binary("mul", in(x), in(s));
  }

  /// x * 0.5 * (1.0 + erf(x / sqrt(2))) or erf(x * (1 / sqrt(2))): recognize_gelu_erf_*.
  Node* gelu_erf_written_out(Node* x) {
    Node* scaled = rng_.chance(0.5) ? op("div", {in(x), scalar(1.4142135623730951)})
                                    : binary("mul", in(x), scalar(0.7071067811865476));
    Node* e = op("erf", {in(scaled)});
    maybe_share(e);
    Node* one_plus = binary("add", scalar(1.0), in(e));
    Node* half_x = binary("mul", in(x), scalar(0.5));
    return op("mul", {in(half_x), in(one_plus)});
  }

  /// 0.5 * x * (1.0 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))): recognize_gelu_tanh.
  Node* gelu_tanh_written_out(Node* x) {
    Node* cube = op("pow", {in(x), scalar(3.0)});
    Node* inner = binary("add", in(x), in(binary("mul", scalar(0.044715), in(cube))));
    Node* t = op("tanh", {in(binary("mul", scalar(0.7978845608028654), in(inner)))});
    maybe_share(t);
    Node* half_x = op("mul", {scalar(0.5), in(x)});
    return op("mul", {in(half_x), in(binary("add", scalar(1.0), in(t)))});
  }

  /// Sometimes a hand-written LayerNorm over the last dim of a pool value (the layer-norm
  /// rules, square_pow_to_mul, cse_sub). Its numbers come from a stream of their own, and it
  /// is added after the blocks, so that the graph every other seed gave stays as it was (the
  /// regression seeds name structures of their graphs).
  void maybe_add_layer_norm(uint64_t seed) {
    Rng own(seed ^ 0x6c61796572ULL);
    std::swap(rng_, own);
    std::vector<Node*> candidates;
    for (Node* n : pool_) {
      if (rank_of(n) >= 2 && rank_of(n) <= 3 && shape_of(n).back() > 1) candidates.push_back(n);
    }
    if (!candidates.empty() && rng_.chance(0.35)) {
      Node* x = candidates[static_cast<size_t>(rng_.below(static_cast<int>(candidates.size())))];
      pool_.push_back(layer_norm_written_out(x));
    }
    std::swap(rng_, own);
  }

  /// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) [* w + b] over the last dim, in the
  /// spellings torch code uses: d * d or pow(d, 2), one x - m or two (HuggingFace's
  /// BertLayerNorm), / sqrt or * rsqrt, weight before or after.
  Node* layer_norm_written_out(Node* x) {
    const AttrList last_dim = {{"dim", std::vector<int64_t>{-1}}, {"keepdim", true}};
    Node* m = op("mean", {in(x)}, last_dim);
    maybe_share(m);
    Node* d = op("sub", {in(x), in(m)});
    Node* square = rng_.chance(0.5) ? op("mul", {in(d), in(d)}) : op("pow", {in(d), scalar(2.0)});
    Node* v = op("mean", {in(square)}, last_dim);
    Node* shifted = op("add", {in(v), scalar(rng_.chance(0.5) ? 1e-5 : 1e-12)});
    Node* numerator = rng_.chance(0.3) ? op("sub", {in(x), in(m)}) : d;  // x - m written twice
    Node* n = rng_.chance(0.5) ? op("div", {in(numerator), in(op("sqrt", {in(shifted)}))})
                               : binary("mul", in(numerator), in(op("rsqrt", {in(shifted)})));
    if (rng_.chance(0.2)) return n;  // LayerNorm(elementwise_affine=False)
    const int64_t size = shape_of(x).back();
    Node* w = param("ln_weight", {size}, 0.5, 1.5);
    Node* b = param("ln_bias", {size}, 0.0, 0.5, /*signed_=*/true);
    return binary("add", in(binary("mul", in(n), in(w))), in(b));
  }

  /// x * relu6(x + 3) / 6: recognize_hardswish.
  Node* hardswish_written_out(Node* x) {
    Node* r = op("relu6", {in(op("add", {in(x), scalar(3.0)}))});
    maybe_share(r);
    return op("div", {in(binary("mul", in(x), in(r))), scalar(6.0)});
  }

  /// Ops that compute nothing (the cleanup rules), and near-misses: negations and a floor
  /// division by 1. Dropout is always training=False: the runtime rejects training dropout,
  /// even with p = 0.
  Node* identity(Node* x) {
    switch (rng_.below(12)) {
      case 0: return op("dropout", {in(x)}, {{"p", rng_.uniform(0.05, 0.5)}, {"training", false}});
      case 1: return op("dropout", {in(x)}, {{"p", 0.0}, {"training", false}});
      case 2: return op("contiguous", {in(x)});
      case 3: return op("clone", {in(x)});
      case 4: return binary("mul", in(x), scalar(1.0));
      case 5: return binary("add", in(x), scalar(0.0));
      case 6: return op("sub", {in(x), scalar(0.0)});
      case 7: return op("div", {in(x), scalar(1.0)});
      case 8: return op("sub", {scalar(0.0), in(x)});  // -x: not an identity, must stay
      case 9: return op("div", {in(x), scalar(1.0)}, {{"rounding_mode", std::string("floor")}});
      case 10: return op("add", {in(x), scalar(0.0)}, {{"alpha", 2.0}});  // still x
      default: return op("mul", {in(x), scalar(-1.0)});
    }
  }

  /// Scaling by constants: a scalar factor or offset, or a broadcast per-channel tensor.
  Node* scale(Node* x) {
    double c = rng_.uniform(0.5, 2.0) * (rng_.chance(0.5) ? -1 : 1);
    switch (rng_.below(5)) {
      case 0: return binary("mul", in(x), scalar(c));
      case 1: return op("div", {in(x), scalar(c)});
      case 2: return binary("add", in(x), scalar(c));
      case 3: return op("sub", {in(x), scalar(c)});
      default: {
        Shape s = rank_of(x) == 4 ? Shape{shape_of(x)[1], 1, 1} : Shape{shape_of(x).back()};
        Node* p = param("scale", s, 0.5, 1.5, true);
        return binary(rng_.chance(0.5) ? "mul" : "add", in(x), in(p));
      }
    }
  }

  /// A residual add with a pool value of the same shape (relu after it, sometimes), or a
  /// broadcast add of a per-channel tensor when there is none.
  Node* residual(Node* x) {
    Node* r = same_shape(shape_of(x), x);
    if (r == nullptr) return scale(x);
    // add(x, r, alpha=a) is x + a * r: not the sum post-op, which the fusions must see.
    Node* s = rng_.chance(0.1) ? op("add", {in(x), in(r)}, {{"alpha", rng_.uniform(0.25, 2.0)}})
                               : binary("add", in(x), in(r));
    if (rng_.chance(0.5)) return s;
    maybe_share(s);
    return op("relu", {in(s)});
  }

  /// Layout round trips (permute NCHW <-> NHWC, a transpose twice, a swap of the last two dims
  /// twice, reshape chains) and near-misses that are not round trips.
  Node* layout(Node* x) {
    const Shape& s = shape_of(x);
    int64_t rank = rank_of(x);
    // 0: permute (4-d; else a transpose), 1: transpose, 2: swap the last dims, 3-4: reshape.
    int kind = rng_.below(5);
    if (kind == 0 && rank == 4) {
      bool to_nhwc = rng_.chance(0.5);
      Node* p = op("permute", {in(x)}, {{"dims", to_nhwc ? Ints{0, 2, 3, 1} : Ints{0, 3, 1, 2}}});
      maybe_share(p);
      if (rng_.chance(0.1)) p = op("relu", {in(p)});
      return op("permute", {in(p)}, {{"dims", to_nhwc ? Ints{0, 3, 1, 2} : Ints{0, 2, 3, 1}}});
    }
    if (kind <= 1) {
      int64_t a = rng_.below(static_cast<int>(rank)),
              b = (a + 1 + rng_.below(static_cast<int>(rank) - 1)) % rank;
      Node* t = op("transpose", {in(x)}, {{"dim0", a}, {"dim1", b}});
      maybe_share(t);
      if (rng_.chance(0.1)) t = op("relu", {in(t)});
      switch (rng_.below(4)) {
        case 0: return op("transpose", {in(t)}, {{"dim0", a}, {"dim1", b}});
        case 1: return op("transpose", {in(t)}, {{"dim0", b}, {"dim1", a}});
        case 2:  // the same dims, spelt differently: a rule comparing numbers must not see it
          return op("transpose", {in(t)}, {{"dim0", a - rank}, {"dim1", b}});
        default: {  // the second swaps other dims
          Node* u = op("transpose", {in(t)}, {{"dim0", int64_t{0}}, {"dim1", rank - 1}});
          return op("transpose", {in(u)}, {{"dim0", int64_t{0}}, {"dim1", rank - 1}});
        }
      }
    }
    if (kind == 2) {
      Ints swap(static_cast<size_t>(rank));
      for (int64_t d = 0; d < rank; ++d) swap[static_cast<size_t>(d)] = d;
      std::swap(swap[static_cast<size_t>(rank - 1)], swap[static_cast<size_t>(rank - 2)]);
      Node* p = op("permute", {in(x)}, {{"dims", swap}});
      maybe_share(p);
      if (rng_.chance(0.1)) p = op("relu", {in(p)});
      return op("permute", {in(p)}, {{"dims", swap}});
    }
    // Reshape chains: flatten the trailing dims and restore them, directly or in steps, or
    // reshape to the shape the value already has.
    int64_t trailing = 1;
    for (int64_t d = 1; d < rank; ++d) trailing *= s[static_cast<size_t>(d)];
    switch (rng_.below(3)) {
      case 0: return op("reshape", {in(x)}, {{"shape", Ints(s.begin(), s.end())}});
      case 1: {
        Node* flat = op("reshape", {in(x)}, {{"shape", Ints{s[0], trailing}}});
        maybe_share(flat);
        return op("reshape", {in(flat)}, {{"shape", Ints(s.begin(), s.end())}});
      }
      default: {
        Node* all = op("reshape", {in(x)}, {{"shape", Ints{-1}}});
        Node* two = op("reshape", {in(all)}, {{"shape", Ints{s[0], trailing}}});
        Ints back(s.begin(), s.end());
        back[0] = -1;
        return op("reshape", {in(two)}, {{"shape", back}});
      }
    }
  }

  uint64_t seed_;
  Rng rng_;
  std::unique_ptr<Graph> graph_;
  std::vector<Node*> pool_;           // values blocks may read, newest last
  std::vector<Node*> extra_outputs_;  // interior values that are also graph outputs
  int inputs_ = 0;
  int params_ = 0;
};

}  // namespace

std::unique_ptr<Graph> random_graph(uint64_t seed, const RandomGraphOptions& options,
                                    std::string* error) {
  try {
    return GraphGen(seed).run(options);
  } catch (const GeneratorBug& bug) {
    *error = "seed " + std::to_string(seed) + ": " + bug.what();
    return nullptr;
  }
}

}  // namespace graft::testing
