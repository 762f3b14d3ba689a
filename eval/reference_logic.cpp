// Reference kernels of the comparison, selection and dtype ops: eq/ne/lt/le/gt/ge, the logical
// ops, where and masked_fill, full_like and to. They take float32, int64 and bool operands and
// are exact: a comparison converts both sides to torch's promoted dtype first (an int64 compared
// with 0.5 compares as float32, as in torch), a selection converts the chosen value to the
// result's dtype.
#include <functional>

#include "engine/ops/type_promotion.h"
#include "eval/element_cast.h"
#include "eval/reference_internal.h"

namespace graft::eval::ref {
namespace {

/// Walks the result's elements in row-major order with each operand's offset, an operand of
/// lower rank or with size-1 dims being broadcast (stride 0 there); a scalar stays at 0.
class BroadcastWalk {
 public:
  BroadcastWalk(const Shape& out, const std::vector<const Tensor*>& operands)
      : shape_(out), index_(out.size(), 0), offsets_(operands.size(), 0) {
    for (const Tensor* t : operands) {
      std::vector<int64_t> strides(out.size(), 0);
      if (t != nullptr) {
        std::vector<int64_t> own = strides_of(t->shape());
        size_t lead = out.size() - t->shape().size();
        for (size_t d = lead; d < out.size(); ++d) {
          if (t->shape()[d - lead] != 1) strides[d] = own[d - lead];
        }
      }
      strides_.push_back(std::move(strides));
    }
  }
  int64_t offset(size_t operand) const { return offsets_[operand]; }
  void next() {
    for (size_t d = shape_.size(); d-- > 0;) {
      for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] += strides_[k][d];
      if (++index_[d] < shape_[d]) return;
      for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] -= strides_[k][d] * index_[d];
      index_[d] = 0;
    }
  }

 private:
  Shape shape_;
  std::vector<int64_t> index_, offsets_;
  std::vector<std::vector<int64_t>> strides_;
};

/// Operand `i` of the call, a tensor or a scalar, read as a T at `offset`.
template <typename T>
T operand_as(const Call& call, size_t i, int64_t offset) {
  if (const Tensor* t = call.tensor(i)) return read_as<T>(*t, offset);
  return convert<T>(*call.operands[i].scalar);
}

/// False after setting the error unless every tensor operand and the result have a dtype
/// these kernels handle, and every absent tensor operand is a scalar.
bool check_operands(const Call& call, const Tensor& out) {
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const RefOperand& o = call.operands[i];
    if (o.tensor == nullptr && !o.scalar) return call.fail("operand " + std::to_string(i) +
                                                           " must be a tensor or a number");
    if (o.tensor != nullptr && !is_cast_dtype(o.tensor->dtype())) {
      return call.fail(call.node.target() + " computes on float32, int64 and bool only");
    }
  }
  if (!is_cast_dtype(out.dtype())) {
    return call.fail(call.node.target() + " computes on float32, int64 and bool only");
  }
  return true;
}

std::vector<const Tensor*> tensors_of(const Call& call) {
  std::vector<const Tensor*> tensors;
  for (size_t i = 0; i < call.operands.size(); ++i) tensors.push_back(call.tensor(i));
  return tensors;
}

/// torch's promoted dtype of the call's operands (the node's scalar inputs keep int vs float).
DType promoted_dtype(const Call& call) {
  ResultType result;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    if (const Tensor* t = call.tensor(i)) {
      result.add(TensorType{t->dtype(), t->shape()});
    } else {
      const Input& in = call.node.inputs()[i];
      result.add(in.is_scalar() ? in.scalar : Scalar{*call.operands[i].scalar, false});
    }
  }
  return result.dtype().value_or(DType::kFloat32);
}

/// A Scalar attribute as a T; nullopt after setting the error if it is not a number. An int
/// converts exactly (a double would round those beyond 2^53).
template <typename T>
std::optional<T> scalar_attr_as(const Call& call, const std::string& name) {
  const AttrValue* v = call.attr(name);
  if (v == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(v)) return convert<T>(*i);
  if (const auto* d = std::get_if<double>(v)) return convert<T>(*d);
  call.fail("attribute '" + name + "' is not a number");
  return std::nullopt;
}

template <typename T, typename Pred>
void compare_as(const Call& call, Tensor& out, Pred pred) {
  BroadcastWalk walk(out.shape(), tensors_of(call));
  for (int64_t i = 0; i < out.numel(); ++i, walk.next()) {
    write_as<bool>(out, i, pred(operand_as<T>(call, 0, walk.offset(0)),
                                operand_as<T>(call, 1, walk.offset(1))));
  }
}

template <typename Pred>
bool compare_with(const Call& call, Tensor& out, Pred pred) {
  return with_cast_type(promoted_dtype(call), [&](auto t) {
    compare_as<decltype(t)>(call, out, pred);
  }) || call.fail(call.node.target() + " computes on float32, int64 and bool only");
}

}  // namespace

bool compare(const Call& call, Tensor& out) {
  if (!check_operands(call, out)) return false;
  const std::string& op = call.node.target();
  if (op == "eq") return compare_with(call, out, std::equal_to<>());
  if (op == "ne") return compare_with(call, out, std::not_equal_to<>());
  if (op == "lt") return compare_with(call, out, std::less<>());
  if (op == "le") return compare_with(call, out, std::less_equal<>());
  if (op == "gt") return compare_with(call, out, std::greater<>());
  if (op == "ge") return compare_with(call, out, std::greater_equal<>());
  return call.fail("no comparison named '" + op + "'");
}

bool logical(const Call& call, Tensor& out) {
  if (!check_operands(call, out)) return false;
  const std::string& op = call.node.target();
  BroadcastWalk walk(out.shape(), tensors_of(call));
  for (int64_t i = 0; i < out.numel(); ++i, walk.next()) {
    bool a = operand_as<bool>(call, 0, walk.offset(0));
    if (op == "logical_not") {
      write_as<bool>(out, i, !a);
      continue;
    }
    bool b = operand_as<bool>(call, 1, walk.offset(1));
    write_as<bool>(out, i, op == "logical_and" ? a && b : a || b);
  }
  return true;
}

bool where(const Call& call, Tensor& out) {
  if (!check_operands(call, out)) return false;
  // where(condition, input, other); masked_fill(input, mask, value) is where(mask, value, input).
  const bool fill = call.node.target() == "masked_fill";
  const size_t cond = fill ? 1 : 0;
  const size_t other = fill ? 0 : 2;
  if (call.tensor(cond) == nullptr || call.tensor(cond)->dtype() != DType::kBool) {
    return call.fail("the condition must be a bool tensor");
  }
  BroadcastWalk walk(out.shape(), tensors_of(call));
  bool ok = true;
  with_cast_type(out.dtype(), [&](auto type) {
    using T = decltype(type);
    std::optional<T> value = fill ? scalar_attr_as<T>(call, "value") : T{};
    if (!value) {
      ok = false;
      return;
    }
    for (int64_t i = 0; i < out.numel(); ++i, walk.next()) {
      T v = *value;
      if (!read_as<bool>(*call.tensor(cond), walk.offset(cond))) {
        v = operand_as<T>(call, other, walk.offset(other));
      } else if (!fill) {
        v = operand_as<T>(call, 1, walk.offset(1));
      }
      write_as<T>(out, i, v);
    }
  });
  return ok;
}

bool full_like(const Call& call, Tensor& out) {
  if (!check_operands(call, out)) return false;
  bool ok = true;
  with_cast_type(out.dtype(), [&](auto type) {
    using T = decltype(type);
    std::optional<T> value = scalar_attr_as<T>(call, "fill_value");
    ok = value.has_value();
    for (int64_t i = 0; ok && i < out.numel(); ++i) write_as<T>(out, i, *value);
  });
  return ok;
}

bool cast(const Call& call, Tensor& out) {
  if (!check_operands(call, out)) return false;
  const Tensor* x = call.tensor(0);
  if (x == nullptr || x->numel() != out.numel()) return call.fail("input and result differ");
  with_cast_type(out.dtype(), [&](auto type) {
    using T = decltype(type);
    for (int64_t i = 0; i < out.numel(); ++i) write_as<T>(out, i, read_as<T>(*x, i));
  });
  return true;
}

}  // namespace graft::eval::ref
