// Stand-in schemas (torch.nn.functional signatures) and simple shape functions for ops the
// registry does not have yet. See test_ops.h.
#include "tests/runtime/test_ops.h"

#include <map>
#include <memory>

#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"

namespace graft::testing {
namespace {

std::optional<TensorType> same(const InferInputs& in, std::string*) { return *in.type(0); }

std::optional<TensorType> broadcast(const InferInputs& in, std::string* error) {
  const TensorType* a = in.type(0);
  const TensorType* b = in.type(1);
  if (!a) return *b;
  if (!b) return *a;
  auto s = broadcast_shapes(a->shape, b->shape);
  if (!s) {
    *error = "cannot broadcast";
    return std::nullopt;
  }
  return TensorType{a->dtype, *s};
}

std::optional<TensorType> linear(const InferInputs& in, std::string*) {
  TensorType t = *in.type(0);
  t.shape.back() = in.type(1)->shape[0];
  return t;
}

std::optional<TensorType> matmul(const InferInputs& in, std::string*) {
  Shape a = in.type(0)->shape, b = in.type(1)->shape;
  bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  Shape out;
  for (size_t i = 0; i + 2 < rank; ++i) out.push_back(std::max(a[i], b[i]));
  if (!a1) out.push_back(a[rank - 2]);
  if (!b1) out.push_back(b[rank - 1]);
  return TensorType{DType::kFloat32, out};
}

std::optional<TensorType> pool(const InferInputs& in, std::string* error) {
  const TensorType& x = *in.type(0);
  auto k = in.ints_attr("kernel_size");
  auto s = in.ints_attr("stride");
  if (s.empty()) s = k;
  auto p = in.ints_attr("padding");
  std::vector<int64_t> d = {1, 1};
  if (in.schema->attr_index("dilation") >= 0) d = in.ints_attr("dilation");
  bool ceil = in.bool_attr("ceil_mode");
  Shape out = x.shape;
  for (size_t i = 0; i < 2; ++i) {
    auto o = window_output_size(x.shape[2 + i], k[i], s[i], p[i], d[i], ceil);
    if (!o) {
      *error = "window does not fit";
      return std::nullopt;
    }
    out[2 + i] = *o;
  }
  return TensorType{x.dtype, out};
}

std::optional<TensorType> adaptive(const InferInputs& in, std::string*) {
  TensorType t = *in.type(0);
  auto o = in.ints_attr("output_size");
  t.shape[2] = o[0];
  t.shape[3] = o[1];
  return t;
}

std::optional<TensorType> flatten(const InferInputs& in, std::string*) {
  const Shape& s = in.type(0)->shape;
  auto r = static_cast<int64_t>(s.size());
  int64_t b = *normalize_dim(in.int_attr("start_dim"), r), e = *normalize_dim(in.int_attr("end_dim"), r);
  Shape out(s.begin(), s.begin() + b);
  int64_t m = 1;
  for (int64_t i = b; i <= e; ++i) m *= s[static_cast<size_t>(i)];
  out.push_back(m);
  out.insert(out.end(), s.begin() + e + 1, s.end());
  return TensorType{DType::kFloat32, out};
}

std::optional<TensorType> reshape(const InferInputs& in, std::string*) {
  Shape out = in.ints_attr("shape");
  int64_t n = *element_count(in.type(0)->shape), known = 1;
  for (Dim d : out) known *= d == -1 ? 1 : d;
  for (Dim& d : out) if (d == -1) d = n / known;
  return TensorType{DType::kFloat32, out};
}

std::optional<TensorType> permute(const InferInputs& in, std::string*) {
  const Shape& s = in.type(0)->shape;
  auto r = static_cast<int64_t>(s.size());
  Shape out = s;
  if (in.schema->name == "permute") {
    auto dims = in.ints_attr("dims");
    for (size_t i = 0; i < dims.size(); ++i) out[i] = s[static_cast<size_t>(*normalize_dim(dims[i], r))];
  } else {
    std::swap(out[static_cast<size_t>(*normalize_dim(in.int_attr("dim0"), r))],
              out[static_cast<size_t>(*normalize_dim(in.int_attr("dim1"), r))]);
  }
  return TensorType{DType::kFloat32, out};
}

std::optional<TensorType> unsqueeze(const InferInputs& in, std::string*) {
  Shape s = in.type(0)->shape;
  auto d = *normalize_dim(in.int_attr("dim"), static_cast<int64_t>(s.size()) + 1);
  s.insert(s.begin() + d, 1);
  return TensorType{DType::kFloat32, s};
}

std::optional<TensorType> squeeze(const InferInputs& in, std::string*) {
  const Shape& s = in.type(0)->shape;
  const AttrValue& dim = in.attr("dim");
  Shape out;
  for (size_t i = 0; i < s.size(); ++i) {
    bool drop = s[i] == 1;
    if (const auto* d = std::get_if<int64_t>(&dim)) {
      drop &= static_cast<int64_t>(i) == *normalize_dim(*d, static_cast<int64_t>(s.size()));
    }
    if (!drop) out.push_back(s[i]);
  }
  return TensorType{DType::kFloat32, out};
}

std::optional<TensorType> cat(const InferInputs& in, std::string*) {
  TensorType t = *in.type(0);
  auto d = *normalize_dim(in.int_attr("dim"), t.rank());
  for (size_t i = 1; i < in.operand_types.size(); ++i) t.shape[static_cast<size_t>(d)] += in.type(i)->shape[static_cast<size_t>(d)];
  return t;
}

std::optional<TensorType> reduce(const InferInputs& in, std::string*) {
  const Shape& s = in.type(0)->shape;
  auto r = static_cast<int64_t>(s.size());
  const AttrValue& dim = in.attr("dim");
  std::vector<int64_t> dims;
  if (const auto* l = std::get_if<std::vector<int64_t>>(&dim)) dims = *l;
  std::vector<bool> red(s.size(), dims.empty());
  for (int64_t d : dims) red[static_cast<size_t>(*normalize_dim(d, r))] = true;
  Shape out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!red[i]) out.push_back(s[i]);
    else if (in.bool_attr("keepdim")) out.push_back(1);
  }
  return TensorType{DType::kFloat32, out};
}

struct StandIn {
  const char* signature;
  InferFn infer;
};

const std::map<std::string, StandIn>& stand_ins() {
  static const std::map<std::string, StandIn> table = {
      {"batch_norm", {"batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05)", same}},
      {"layer_norm", {"layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05)", same}},
      {"linear", {"linear(Tensor input, Tensor weight, Tensor? bias=None)", linear}},
      {"matmul", {"matmul(Tensor input, Tensor other)", matmul}},
      {"relu6", {"relu6(Tensor input)", same}},
      {"hardtanh", {"hardtanh(Tensor input, float min_val=-1.0, float max_val=1.0)", same}},
      {"leaky_relu", {"leaky_relu(Tensor input, float negative_slope=0.01)", same}},
      {"elu", {"elu(Tensor input, float alpha=1.0)", same}},
      {"hardswish", {"hardswish(Tensor input)", same}},
      {"hardsigmoid", {"hardsigmoid(Tensor input)", same}},
      {"silu", {"silu(Tensor input)", same}},
      {"sigmoid", {"sigmoid(Tensor input)", same}},
      {"gelu", {"gelu(Tensor input, str approximate='none')", same}},
      {"tanh", {"tanh(Tensor input)", same}},
      {"sqrt", {"sqrt(Tensor input)", same}},
      {"rsqrt", {"rsqrt(Tensor input)", same}},
      {"exp", {"exp(Tensor input)", same}},
      {"log", {"log(Tensor input)", same}},
      {"neg", {"neg(Tensor input)", same}},
      {"reciprocal", {"reciprocal(Tensor input)", same}},
      {"abs", {"abs(Tensor input)", same}},
      {"erf", {"erf(Tensor input)", same}},
      {"clamp", {"clamp(Tensor input, Scalar? min=None, Scalar? max=None)", same}},
      {"dropout", {"dropout(Tensor input, float p=0.5, bool training=False)", same}},
      {"contiguous", {"contiguous(Tensor input)", same}},
      {"clone", {"clone(Tensor input)", same}},
      {"softmax", {"softmax(Tensor input, int dim)", same}},
      {"log_softmax", {"log_softmax(Tensor input, int dim)", same}},
      {"sub", {"sub(Tensor|Scalar input, Tensor|Scalar other, Scalar alpha=1)", broadcast}},
      {"div", {"div(Tensor|Scalar input, Tensor|Scalar other)", broadcast}},
      {"pow", {"pow(Tensor|Scalar input, Tensor|Scalar exponent)", broadcast}},
      {"max_pool2d", {"max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)", pool}},
      {"avg_pool2d", {"avg_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)", pool}},
      {"adaptive_avg_pool2d", {"adaptive_avg_pool2d(Tensor input, int[2] output_size)", adaptive}},
      {"adaptive_max_pool2d", {"adaptive_max_pool2d(Tensor input, int[2] output_size)", adaptive}},
      {"flatten", {"flatten(Tensor input, int start_dim=0, int end_dim=-1)", flatten}},
      {"reshape", {"reshape(Tensor input, int[] shape)", reshape}},
      {"permute", {"permute(Tensor input, int[] dims)", permute}},
      {"transpose", {"transpose(Tensor input, int dim0, int dim1)", permute}},
      {"unsqueeze", {"unsqueeze(Tensor input, int dim)", unsqueeze}},
      {"squeeze", {"squeeze(Tensor input, int? dim=None)", squeeze}},
      {"cat", {"cat(Tensor[] tensors, int dim=0)", cat}},
      {"mean", {"mean(Tensor input, int[]? dim=None, bool keepdim=False)", reduce}},
      {"sum", {"sum(Tensor input, int[]? dim=None, bool keepdim=False)", reduce}},
  };
  return table;
}

}  // namespace

bool in_registry(const std::string& op) { return OpRegistry::get().find(op) != nullptr; }

const OpSchema* runtime_test_schema(const std::string& op) {
  if (const OpSchema* s = OpRegistry::get().find(op)) return s;
  static std::map<std::string, std::unique_ptr<OpSchema>> made;
  auto it = made.find(op);
  if (it != made.end()) return it->second.get();
  auto row = stand_ins().find(op);
  if (row == stand_ins().end()) return nullptr;
  std::string error;
  auto schema = parse_op_signature(row->second.signature, &error);
  if (!schema) return nullptr;
  schema->infer = row->second.infer;
  schema->id = 60000;  // not a registry id; runtime kernels look ops up by name
  auto owned = std::make_unique<OpSchema>(std::move(*schema));
  const OpSchema* result = owned.get();
  made.emplace(op, std::move(owned));
  return result;
}

}  // namespace graft::testing
