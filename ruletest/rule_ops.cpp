// What each op family computes as prover terms (rule_terms.h): elementwise formulas with
// broadcasting, comparisons, logic and selection, views and permutes, and every other op as an
// uninterpreted function of its operands and attributes.
#include <fmt/format.h>

#include <cmath>

#include "engine/ops/op_registry.h"
#include "ruletest/rule_terms.h"

namespace graft::ruletest {

bool elementwise_rule(const Rule& rule, const std::vector<size_t>& choice) {
  auto elementwise = [](const OpSchema& op) {
    switch (op.family) {
      case OpFamily::kUnary:
      case OpFamily::kBinary:
      case OpFamily::kIdentity:
      case OpFamily::kDropout:
      case OpFamily::kFullLike:
      case OpFamily::kCompare:
      case OpFamily::kLogical:
      case OpFamily::kWhere: return true;
      default: return false;
    }
  };
  for (size_t i = 0; i < rule.nodes.size(); ++i) {
    const PatNode& node = rule.nodes[i];
    if (node.alts.empty()) continue;
    if (!elementwise(*node.alts[i < choice.size() ? choice[i] : 0].schema)) return false;
  }
  for (const ReplOp& op : rule.replacement) {
    if (!elementwise(*op.schema)) return false;
  }
  return true;
}

void RuleTerms::require(const z3::expr& valid) {
  (in_replacement_ ? replacement_valid_ : constraints_).push_back(valid);
}

z3::expr RuleTerms::truth(const z3::expr& v) {
  return fp_ ? !z3::expr(ctx_, Z3_mk_fpa_eq(ctx_, v, number(0))) : v != number(0);
}

z3::expr RuleTerms::boolean(const z3::expr& b) { return z3::ite(b, number(1), number(0)); }

z3::expr RuleTerms::normalized_dim(const z3::expr& dim, size_t rank) {
  const int r = static_cast<int>(std::max<size_t>(rank, 1));
  require(-r <= dim && dim < r);
  return z3::ite(dim < 0, dim + static_cast<int>(rank), dim).simplify();
}

Tensor RuleTerms::apply(const OpSchema& op, const std::vector<std::optional<Tensor>>& operands,
                        const AttrTerms& attrs) {
  auto operand = [&](size_t i) -> const Tensor& {
    if (i >= operands.size() || !operands[i]) throw Outside{op.name + " without its operand"};
    return *operands[i];
  };
  auto attr = [&](const char* name) { return static_cast<size_t>(op.attr_index(name)); };
  switch (op.family) {
    case OpFamily::kIdentity: return operand(0);
    case OpFamily::kDropout: {
      // The identity at inference, and with p = 0 in training too.
      std::optional<AttrValue> training = attrs.literal(attr("training"));
      std::optional<AttrValue> p = attrs.literal(attr("p"));
      const bool p0 = p && attr_equal(*p, AttrValue{0.0});
      if (!p0 && (!training || *training != AttrValue{false})) {
        throw Outside{"dropout that may train with p > 0"};
      }
      return operand(0);
    }
    case OpFamily::kFullLike: {
      int dtype = op.attr_index("dtype");
      if (dtype >= 0 && attrs.literal(static_cast<size_t>(dtype)) != AttrValue{}) {
        throw Outside{"full_like with a dtype"};
      }
      std::optional<z3::expr> fill = attrs.numbers[attr("fill_value")];
      if (!fill) throw Outside{"full_like without its value"};
      Tensor t = operand(0);
      t.input.clear();  // its shape, not its elements
      t.at = [value = *fill](const Index&) { return value; };
      return t;
    }
    case OpFamily::kUnary:
    case OpFamily::kBinary: {
      const bool binary = is_binary(op.elementwise->formula);
      std::vector<Tensor> xs{operand(0)};
      if (binary) xs.push_back(operand(1));
      return elementwise(xs, [this, &op, attrs](const std::vector<z3::expr>& x) {
        return formula(op, x, attrs);
      });
    }
    case OpFamily::kCompare:
      return elementwise({operand(0), operand(1)}, [this, &op](const std::vector<z3::expr>& x) {
        if (op.name == "eq" || op.name == "ne") {
          z3::expr eq = fp_ ? z3::expr(ctx_, Z3_mk_fpa_eq(ctx_, x[0], x[1])) : x[0] == x[1];
          return boolean(op.name == "eq" ? eq : !eq);
        }
        if (op.name == "lt") return boolean(x[0] < x[1]);
        if (op.name == "le") return boolean(x[0] <= x[1]);
        if (op.name == "gt") return boolean(x[0] > x[1]);
        if (op.name == "ge") return boolean(x[0] >= x[1]);
        throw Outside{"the comparison " + op.name};
      });
    case OpFamily::kLogical: {
      std::vector<Tensor> xs{operand(0)};
      if (op.name != "logical_not") xs.push_back(operand(1));
      return elementwise(xs, [this, &op](const std::vector<z3::expr>& x) {
        if (op.name == "logical_not") return boolean(!truth(x[0]));
        if (op.name == "logical_and") return boolean(truth(x[0]) && truth(x[1]));
        if (op.name == "logical_or") return boolean(truth(x[0]) || truth(x[1]));
        throw Outside{"the logical op " + op.name};
      });
    }
    case OpFamily::kWhere: {
      if (op.attr_index("value") < 0) {  // where(condition, input, other)
        return elementwise({operand(0), operand(1), operand(2)},
                           [this](const std::vector<z3::expr>& x) {
                             return z3::ite(truth(x[0]), x[1], x[2]);
                           });
      }
      // masked_fill(input, mask, value): the input's shape, which the mask must not enlarge.
      std::optional<z3::expr> value = attrs.numbers[attr("value")];
      if (!value) throw Outside{"masked_fill without its value"};
      const Tensor in = operand(0), mask = operand(1);
      require(algebra_.broadcasts_to(mask, in));
      Tensor out = in;
      out.input.clear();
      out.at = [this, in, mask, fill = *value](const Index& i) {
        return z3::ite(truth(mask.at(algebra_.operand_index(mask, in, i))), fill, in.at(i));
      };
      return out;
    }
    default: break;
  }
  if (!tensors_) throw Outside{"'" + op.name + "' is not an elementwise formula"};
  if (op.family == OpFamily::kPermute || op.family == OpFamily::kView) {
    return layout(op, operand(0), attrs);
  }
  if (op.family == OpFamily::kLinear) return linear(operand(0), operand(1), operands.at(2));
  return other_op(op, operands, attrs);
}

Tensor RuleTerms::elementwise(const std::vector<Tensor>& operands,
                              const std::function<z3::expr(const std::vector<z3::expr>&)>& f) {
  std::vector<const Tensor*> shapes;
  for (const Tensor& t : operands) shapes.push_back(&t);
  std::vector<z3::expr> valid;
  Tensor out = algebra_.broadcast_shape(shapes, valid);
  for (const z3::expr& v : valid) require(v);
  const Tensor shaped = out;
  out.at = [this, operands, shaped, f](const Index& i) {
    std::vector<z3::expr> x;
    for (const Tensor& t : operands) x.push_back(t.at(algebra_.operand_index(t, shaped, i)));
    return f(x);
  };
  return out;
}

/// Permutes and views: the elements moved, never computed.
Tensor RuleTerms::layout(const OpSchema& op, const Tensor& in, const AttrTerms& attrs) {
  auto attr = [&](const char* name) { return static_cast<size_t>(op.attr_index(name)); };
  auto rank = [&]() { return algebra_.dims(in).size(); };
  if (op.name == "transpose") {
    const size_t r = rank();
    z3::expr a = normalized_dim(attrs.integer(attr("dim0")), r);
    z3::expr b = normalized_dim(attrs.integer(attr("dim1")), r);
    if (r == 0) return in;
    std::vector<z3::expr> perm;
    for (size_t k = 0; k < r; ++k) {
      const int kk = static_cast<int>(k);
      perm.push_back(z3::ite(a == kk, b, z3::ite(b == kk, a, ctx_.int_val(kk))).simplify());
    }
    return algebra_.permute(in, perm);
  }
  if (op.name == "permute") {
    const size_t r = rank();
    std::optional<std::vector<z3::expr>> dims = attrs.int_list(attr("dims"));
    if (!dims) throw Outside{"a permutation the prover does not know"};
    if (dims->size() != r) {
      require(ctx_.bool_val(false));
      return in;
    }
    std::vector<z3::expr> perm;
    for (const z3::expr& d : *dims) perm.push_back(normalized_dim(d, r));
    for (size_t i = 0; i < r; ++i) {
      for (size_t j = i + 1; j < r; ++j) require(perm[i] != perm[j]);
    }
    return algebra_.permute(in, perm);
  }
  const z3::expr count = algebra_.numel(in);
  if (op.name == "reshape") {
    std::optional<std::vector<z3::expr>> sizes = attrs.int_list(attr("shape"));
    if (!sizes) {
      const z3::expr list = attrs.opaque_list(attr("shape"));
      z3::sort_vector domain(ctx_);
      domain.push_back(list.get_sort());
      domain.push_back(ctx_.int_sort());
      require(ctx_.function("valid:reshape", domain, ctx_.bool_sort())(list, count));
      return algebra_.view(in, std::nullopt, algebra_.reshaped(list, count));
    }
    std::optional<size_t> inferred;
    z3::expr known = ctx_.int_val(1);
    for (size_t k = 0; k < sizes->size(); ++k) {
      const z3::expr& s = (*sizes)[k];
      if (!s.is_numeral()) throw Outside{"a reshape size bound to a variable"};
      if (s.get_numeral_int64() == -1 && !inferred) {
        inferred = k;
        continue;
      }
      require(s >= 0);
      known = known * s;
    }
    std::vector<z3::expr> dims = *sizes;
    if (inferred) {
      require(known > 0);
      dims[*inferred] = count / known;
    }
    Tensor shaped;
    shaped.dims = dims;
    require(algebra_.numel(shaped) == count);
    return algebra_.view(in, dims, std::nullopt);
  }
  // flatten and unsqueeze of an input of open rank: its rank gives their dims.
  if ((op.name == "unsqueeze" || op.name == "flatten") && !in.rank_input.empty()) {
    algebra_.dims(in);
  }
  if (op.name == "unsqueeze" && in.dims) {
    const size_t r = in.dims->size();
    z3::expr d = normalized_dim(attrs.integer(attr("dim")), r + 1);
    if (d.is_numeral()) {
      std::vector<z3::expr> dims = *in.dims;
      dims.insert(dims.begin() + d.get_numeral_int64(), ctx_.int_val(1));
      return algebra_.view(in, dims, std::nullopt);
    }
  }
  if (op.name == "flatten" && in.dims) {
    const size_t r = in.dims->size();
    z3::expr start = normalized_dim(attrs.integer(attr("start_dim")), r);
    z3::expr end = normalized_dim(attrs.integer(attr("end_dim")), r);
    if (start.is_numeral() && end.is_numeral() && r > 0) {
      const int64_t s = start.get_numeral_int64(), e = end.get_numeral_int64();
      require(ctx_.bool_val(s <= e));
      std::vector<z3::expr> dims(in.dims->begin(), in.dims->begin() + s);
      z3::expr merged = ctx_.int_val(1);
      for (int64_t k = s; k <= e && k < static_cast<int64_t>(r); ++k) merged = merged * (*in.dims)[k];
      dims.push_back(merged.simplify());
      dims.insert(dims.end(), in.dims->begin() + std::min<int64_t>(e + 1, r), in.dims->end());
      return algebra_.view(in, dims, std::nullopt);
    }
  }
  // Another view: its shape a function of the input's and of the attributes.
  Tensor out = other_op(op, {in}, attrs);
  return algebra_.view(in, out.dims, out.shape);
}

/// linear(x, w, b) as it is defined: matmul(x, w.T) + b, so that a rule from matmul and add
/// to linear compares like with like.
Tensor RuleTerms::linear(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  if (algebra_.dims(w).size() != 2) {
    require(ctx_.bool_val(false));
    return x;
  }
  const Tensor wt = algebra_.permute(w, {ctx_.int_val(1), ctx_.int_val(0)});
  Tensor y = other_op(*OpRegistry::get().find("matmul"), {x, wt}, AttrTerms{});
  if (!b) return y;
  return elementwise({y, *b}, [this](const std::vector<z3::expr>& v) {
    return binary(Formula::kAdd, v[0], v[1], std::nullopt);
  });
}

/// An op without a formula: its elements and its shape uninterpreted functions of its
/// operands (as arrays), their shapes and its attributes; softmax keeps its input's shape.
Tensor RuleTerms::other_op(const OpSchema& op, const std::vector<std::optional<Tensor>>& operands,
                           const AttrTerms& attrs) {
  std::vector<const Tensor*> xs;
  std::string present;
  for (const std::optional<Tensor>& t : operands) {
    present += t ? '1' : '0';
    if (t) xs.push_back(&*t);
  }
  // The first operand's rank, to count a `dim` from the end by (-1: open).
  const int64_t rank = !xs.empty() && xs[0]->dims ? static_cast<int64_t>(xs[0]->dims->size()) : -1;
  auto dim = [&](const z3::expr& d) {
    return rank >= 0 ? normalized_dim(d, static_cast<size_t>(rank)) : d;
  };
  std::vector<z3::expr> args;
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    const AttrSpec& spec = op.attrs[i];
    const bool is_dim = spec.name == "dim" || spec.name == "dims";
    std::optional<AttrValue> literal = attrs.literal(i);
    switch (spec.type) {
      case AttrType::kInt: {
        if (literal && std::holds_alternative<std::monostate>(*literal)) {
          args.push_back(ctx_.string_val("None"));
          break;
        }
        z3::expr d = attrs.integer(i);
        args.push_back(is_dim ? dim(d) : d);
        break;
      }
      case AttrType::kFloat:
      case AttrType::kScalar:
        if (attrs.numbers[i]) {
          args.push_back(*attrs.numbers[i]);
        } else {
          if (!literal) throw Outside{"'" + op.name + "' with '" + spec.name + "' left open"};
          args.push_back(ctx_.string_val(attr_to_string(*literal)));
        }
        break;
      case AttrType::kInts: {
        if (std::optional<std::vector<z3::expr>> items = attrs.int_list(i)) {
          args.push_back(ctx_.int_val(static_cast<int64_t>(items->size())));
          for (const z3::expr& d : *items) args.push_back(is_dim ? dim(d) : d);
        } else {
          args.push_back(attrs.opaque_list(i));
        }
        break;
      }
      case AttrType::kBool:
      case AttrType::kString:
      case AttrType::kFloats:
        if (!literal) throw Outside{"'" + op.name + "' with '" + spec.name + "' left open"};
        args.push_back(ctx_.string_val(attr_to_string(*literal)));
        break;
    }
  }
  functions_.insert(op.name);
  without_formula_[in_replacement_ ? 1 : 0].insert(op.name);
  const z3::sort element = fp_ ? ctx_.fpa_sort<32>() : ctx_.real_sort();
  std::optional<Tensor> shape;
  if (op.family == OpFamily::kSoftmax && !xs.empty()) shape = *xs[0];
  std::vector<z3::expr> valid;
  Tensor out = algebra_.opaque(op.name + "/" + present, xs, args, element, shape, valid);
  for (const z3::expr& v : valid) require(v);
  return out;
}

z3::expr RuleTerms::formula(const OpSchema& op, const std::vector<z3::expr>& x,
                            const AttrTerms& attrs) {
  const ElementwiseFacts& facts = *op.elementwise;
  Formula f = facts.formula;
  for (const FormulaVariant& variant : facts.variants) {
    std::optional<AttrValue> value = attrs.literal(static_cast<size_t>(variant.index));
    if (!value) throw Outside{"'" + op.name + "' with '" + variant.attr + "' left open"};
    if (*value == AttrValue{variant.value}) f = variant.formula;
  }
  auto param = [&](const FormulaParam& p) -> std::optional<z3::expr> {
    if (p.attr.empty()) return std::nullopt;
    std::optional<z3::expr> v = attrs.numbers[static_cast<size_t>(p.index)];
    if (v) return v;
    if (!std::isfinite(p.none_value)) return std::nullopt;  // an absent clamp bound
    return number(p.none_value);
  };
  std::optional<z3::expr> alpha = param(facts.alpha), beta = param(facts.beta);
  if (is_binary(f)) return binary(f, x[0], x[1], alpha);
  return unary(f, x[0], alpha, beta);
}

}  // namespace graft::ruletest
