#include "ruletest/prover_tensors.h"

#include <fmt/format.h>

#include <algorithm>

#include "ruletest/rule_equality.h"

namespace graft::ruletest {
namespace {

bool is_one(const z3::expr& e) { return e.is_numeral() && e.get_numeral_int64() == 1; }

/// Whether `a` and `b` have the same shape by construction (the same terms).
bool same_syntax(const Tensor& a, const Tensor& b) {
  if (a.dims && b.dims) {
    if (a.dims->size() != b.dims->size()) return false;
    for (size_t k = 0; k < a.dims->size(); ++k) {
      if (!z3::eq((*a.dims)[k], (*b.dims)[k])) return false;
    }
    return true;
  }
  return a.shape && b.shape && z3::eq(*a.shape, *b.shape);
}

}  // namespace

Tensor TensorAlgebra::input(const std::string& name, std::optional<int> rank,
                            const std::function<z3::expr(const std::vector<z3::expr>&)>& element) {
  Tensor t;
  t.input = name;
  t.rank_input = name;
  if (!rank) {
    t.shape = ctx_.constant(fmt::format("shape({})", name).c_str(), shape_sort_);
    t.at = [element](const Index& i) {
      if (!i.flat) throw Outside{"an index tuple of a tensor of open rank"};
      return element({*i.flat});
    };
    return t;
  }
  std::vector<z3::expr> dims;
  for (int k = 0; k < *rank; ++k) {
    dims.push_back(ctx_.int_const(fmt::format("{}.size({})", name, k).c_str()));
    axioms_.push_back(dims.back() >= 0);
  }
  t.dims = dims;
  t.at = [this, dims, element](const Index& i) {
    return element(i.flat ? unravel(dims, *i.flat) : i.tuple);
  };
  return t;
}

Tensor TensorAlgebra::scalar(const z3::expr& value) {
  Tensor t;
  t.dims = std::vector<z3::expr>{};
  t.at = [value](const Index&) { return value; };
  return t;
}

z3::func_decl TensorAlgebra::shape_function(const std::string& name, size_t arity,
                                            const z3::sort& range) {
  z3::sort_vector domain(ctx_);
  for (size_t k = 0; k < arity; ++k) domain.push_back(shape_sort_);
  return ctx_.function(name.c_str(), domain, range);
}

z3::expr TensorAlgebra::numel(const Tensor& t) {
  if (t.dims) {
    z3::expr n = ctx_.int_val(1);
    for (const z3::expr& d : *t.dims) n = is_one(n) ? d : n * d;
    return n;
  }
  z3::expr n = shape_function("numel", 1, ctx_.int_sort())(*t.shape);
  axioms_.push_back(n >= 0);
  return n;
}

z3::expr TensorAlgebra::shape_term(const Tensor& t) {
  if (t.shape) return *t.shape;
  z3::sort_vector domain(ctx_);
  z3::expr_vector args(ctx_);
  for (const z3::expr& d : *t.dims) {
    domain.push_back(ctx_.int_sort());
    args.push_back(d);
  }
  z3::expr term =
      ctx_.function(fmt::format("shape{}", t.dims->size()).c_str(), domain, shape_sort_)(args);
  axioms_.push_back(shape_function("numel", 1, ctx_.int_sort())(term) == numel(t));
  return term;
}

z3::expr TensorAlgebra::same_shape(const Tensor& a, const Tensor& b) {
  if (a.dims && b.dims) {
    if (a.dims->size() != b.dims->size()) return ctx_.bool_val(false);
    z3::expr all = ctx_.bool_val(true);
    for (size_t k = 0; k < a.dims->size(); ++k) all = all && (*a.dims)[k] == (*b.dims)[k];
    return all;
  }
  return shape_term(a) == shape_term(b);
}

z3::expr TensorAlgebra::ravel(const std::vector<z3::expr>& dims,
                              const std::vector<z3::expr>& tuple) {
  if (tuple.size() != dims.size()) throw Outside{"an index of the wrong rank"};
  if (tuple.empty()) return ctx_.int_val(0);
  z3::expr offset = tuple[0];
  for (size_t k = 1; k < tuple.size(); ++k) offset = offset * dims[k] + tuple[k];
  return offset;
}

std::vector<z3::expr> TensorAlgebra::unravel(const std::vector<z3::expr>& dims,
                                             const z3::expr& offset) {
  std::vector<z3::expr> tuple(dims.size(), offset);
  z3::expr rest = offset;
  for (size_t k = dims.size(); k-- > 1;) {
    tuple[k] = z3::mod(rest, dims[k]);
    rest = rest / dims[k];
  }
  if (!dims.empty()) tuple[0] = rest;
  return tuple;
}

const std::vector<z3::expr>& TensorAlgebra::dims(const Tensor& t) {
  if (!t.dims) {
    if (!t.rank_input.empty()) throw NeedRank{t.rank_input};
    throw Outside{"the dims of a computed value of open rank"};
  }
  return *t.dims;
}

std::vector<z3::expr> TensorAlgebra::tuple(const Tensor& t, const Index& i) {
  return i.flat ? unravel(dims(t), *i.flat) : i.tuple;
}

z3::expr TensorAlgebra::flat(const Tensor& t, const Index& i) {
  if (i.flat) return *i.flat;
  if (!t.dims) throw Outside{"an index tuple of a tensor of open rank"};
  return ravel(*t.dims, i.tuple);
}

Index TensorAlgebra::fresh_index(const Tensor& t, const std::string& name, z3::expr* in_range) {
  Index i;
  *in_range = ctx_.bool_val(true);
  if (t.dims) {
    for (size_t k = 0; k < t.dims->size(); ++k) {
      i.tuple.push_back(ctx_.int_const(fmt::format("{}[{}]", name, k).c_str()));
      *in_range = *in_range && 0 <= i.tuple.back() && i.tuple.back() < (*t.dims)[k];
    }
    return i;
  }
  i.flat = ctx_.int_const(fmt::format("{}[offset]", name).c_str());
  *in_range = 0 <= *i.flat && *i.flat < numel(t);
  return i;
}

Tensor TensorAlgebra::broadcast_shape(const std::vector<const Tensor*>& operands,
                                      std::vector<z3::expr>& valid) {
  std::vector<const Tensor*> shaped;
  for (const Tensor* t : operands) {
    if (!(t->dims && t->dims->empty())) shaped.push_back(t);
  }
  Tensor out;
  if (shaped.empty()) {
    out.dims = std::vector<z3::expr>{};
    return out;
  }
  bool same = true, known = true;
  for (const Tensor* t : shaped) {
    same = same && same_syntax(*shaped[0], *t);
    known = known && t->dims.has_value();
  }
  if (same) {
    out.dims = shaped[0]->dims;
    out.shape = shaped[0]->shape;
    out.rank_input = shaped[0]->rank_input;
    return out;
  }
  if (known) {
    size_t rank = 0;
    for (const Tensor* t : shaped) rank = std::max(rank, t->dims->size());
    std::vector<z3::expr> dims;
    for (size_t k = 0; k < rank; ++k) {
      std::optional<z3::expr> cur;
      for (const Tensor* t : shaped) {
        if (t->dims->size() + k < rank) continue;
        const z3::expr d = (*t->dims)[k + t->dims->size() - rank];
        if (!cur || is_one(*cur)) {
          if (cur && !is_one(d)) valid.push_back(d >= 0);
          cur = d;
        } else if (!is_one(d)) {
          valid.push_back(d == 1 || *cur == 1 || d == *cur);
          cur = z3::ite(d == 1, *cur, d);
        }
      }
      dims.push_back(*cur);
    }
    out.dims = dims;
    return out;
  }
  std::vector<z3::expr> terms;
  for (const Tensor* t : shaped) terms.push_back(shape_term(*t));
  Broadcast b = broadcast(terms);
  valid.push_back(b.valid);
  out.shape = b.shape;
  return out;
}

TensorAlgebra::Broadcast TensorAlgebra::broadcast(const std::vector<z3::expr>& terms) {
  // Broadcasting joins shapes (each dim the larger, 1 below all), so it is commutative,
  // associative and idempotent: the broadcast of a set of shape terms, written one way.
  std::vector<z3::expr> atoms;
  for (const z3::expr& t : terms) {
    auto it = broadcast_atoms_.find(t.id());
    const std::vector<z3::expr> of_t = it == broadcast_atoms_.end() ? std::vector<z3::expr>{t}
                                                                    : it->second;
    for (const z3::expr& a : of_t) {
      if (std::none_of(atoms.begin(), atoms.end(), [&](const z3::expr& b) { return z3::eq(a, b); })) {
        atoms.push_back(a);
      }
    }
  }
  std::sort(atoms.begin(), atoms.end(),
            [](const z3::expr& a, const z3::expr& b) { return a.id() < b.id(); });
  if (atoms.size() == 1) return {atoms[0], ctx_.bool_val(true)};
  abstract_ = true;
  z3::func_decl join = shape_function(fmt::format("broadcast{}", atoms.size()), atoms.size(), shape_sort_);
  z3::func_decl fits =
      shape_function(fmt::format("broadcasts{}", atoms.size()), atoms.size(), ctx_.bool_sort());
  z3::expr_vector args(ctx_);
  for (const z3::expr& a : atoms) args.push_back(a);
  Broadcast out{join(args), fits(args)};
  broadcast_atoms_.emplace(out.shape.id(), atoms);
  // Shapes that are equal broadcast to themselves.
  z3::expr all_equal = ctx_.bool_val(true);
  for (size_t k = 1; k < atoms.size(); ++k) all_equal = all_equal && atoms[k] == atoms[0];
  axioms_.push_back(z3::implies(all_equal, out.shape == atoms[0] && out.valid));
  return out;
}

z3::expr TensorAlgebra::broadcasts_to(const Tensor& from, const Tensor& to) {
  if (from.dims && from.dims->empty()) return ctx_.bool_val(true);
  if (same_syntax(from, to)) return ctx_.bool_val(true);
  if (from.dims && to.dims) {
    const size_t rf = from.dims->size(), rt = to.dims->size();
    if (rf > rt) return ctx_.bool_val(false);
    z3::expr all = ctx_.bool_val(true);
    for (size_t k = 0; k < rf; ++k) {
      all = all && ((*from.dims)[k] == 1 || (*from.dims)[k] == (*to.dims)[k + rt - rf]);
    }
    return all;
  }
  const z3::expr t = shape_term(to);
  Broadcast b = broadcast({shape_term(from), t});
  return b.shape == t && b.valid;
}

Index TensorAlgebra::operand_index(const Tensor& operand, const Tensor& result, const Index& i) {
  if (operand.dims && operand.dims->empty()) return Index{};
  if (same_syntax(operand, result)) return i;
  if (operand.dims && result.dims) {
    const std::vector<z3::expr> at = tuple(result, i);
    const size_t offset = at.size() - operand.dims->size();
    Index j;
    for (size_t k = 0; k < operand.dims->size(); ++k) {
      const z3::expr& d = (*operand.dims)[k];
      j.tuple.push_back(is_one(d) ? ctx_.int_val(0) : z3::ite(d == 1, ctx_.int_val(0), at[k + offset]));
    }
    return j;
  }
  abstract_ = true;
  z3::expr from = shape_term(operand), to = shape_term(result), o = flat(result, i);
  z3::sort_vector domain(ctx_);
  domain.push_back(shape_sort_);
  domain.push_back(shape_sort_);
  domain.push_back(ctx_.int_sort());
  z3::expr j = ctx_.function("broadcast_index", domain, ctx_.int_sort())(from, to, o);
  axioms_.push_back(z3::implies(from == to, j == o));
  return Index{{}, j};
}

z3::expr TensorAlgebra::pick(const std::vector<z3::expr>& dims, const z3::expr& k) {
  if (k.is_numeral()) {
    const int64_t at = k.get_numeral_int64();
    if (at < 0 || at >= static_cast<int64_t>(dims.size())) throw Outside{"a dim out of range"};
    return dims[static_cast<size_t>(at)];
  }
  if (dims.empty()) throw Outside{"a dim of a 0-d value"};
  z3::expr e = dims.back();
  for (size_t m = dims.size() - 1; m-- > 0;) e = z3::ite(k == static_cast<int>(m), dims[m], e);
  return e;
}

Tensor TensorAlgebra::permute(const Tensor& in, const std::vector<z3::expr>& perm) {
  const std::vector<z3::expr>& in_dims = dims(in);
  Tensor out;
  std::vector<z3::expr> out_dims;
  for (const z3::expr& p : perm) out_dims.push_back(pick(in_dims, p));
  out.dims = out_dims;
  const size_t rank = perm.size();
  out.at = [this, in, perm, out_dims, rank](const Index& i) {
    const std::vector<z3::expr> at = i.flat ? unravel(out_dims, *i.flat) : i.tuple;
    std::vector<z3::expr> j;
    for (size_t m = 0; m < rank; ++m) {
      // Input dim m is result dim k where perm[k] == m.
      std::optional<z3::expr> e;
      for (size_t k = rank; k-- > 0;) {
        if (perm[k].is_numeral()) {
          if (perm[k].get_numeral_int64() == static_cast<int64_t>(m)) e = at[k];
        } else {
          e = e ? z3::ite(perm[k] == static_cast<int>(m), at[k], *e) : at[k];
        }
      }
      if (!e) throw Outside{"a permutation that misses a dim"};
      j.push_back(*e);
    }
    return in.at(Index{j, std::nullopt});
  };
  return out;
}

Tensor TensorAlgebra::view(const Tensor& in, std::optional<std::vector<z3::expr>> dims,
                           std::optional<z3::expr> shape) {
  Tensor out;
  out.dims = dims;
  out.shape = shape;
  out.at = [this, in, dims](const Index& i) {
    if (i.flat) return in.at(i);
    if (!dims) throw Outside{"an index tuple of a tensor of open rank"};
    return in.at(Index{{}, ravel(*dims, i.tuple)});
  };
  return out;
}

z3::expr TensorAlgebra::reshaped(const z3::expr& sizes, const z3::expr& count) {
  abstract_ = true;
  z3::sort_vector domain(ctx_);
  domain.push_back(sizes.get_sort());
  domain.push_back(ctx_.int_sort());
  z3::expr term = ctx_.function("reshaped", domain, shape_sort_)(sizes, count);
  axioms_.push_back(shape_function("numel", 1, ctx_.int_sort())(term) == count);
  return term;
}

Tensor TensorAlgebra::opaque(const std::string& op, const std::vector<const Tensor*>& operands,
                             const std::vector<z3::expr>& attrs, const z3::sort& element,
                             std::optional<Tensor> shape, std::vector<z3::expr>& valid) {
  z3::expr_vector args(ctx_);
  const z3::sort array = ctx_.array_sort(ctx_.int_sort(), element);
  for (const Tensor* t : operands) {
    // The operand's elements as an array over offsets, fixed outside its range.
    z3::expr o = ctx_.int_const("offset");
    z3::expr e = t->at(Index{{}, o});
    z3::expr outside = ctx_.constant("outside", e.get_sort());
    args.push_back(z3::lambda(o, z3::ite(0 <= o && o < numel(*t), e, outside)));
  }
  z3::sort_vector sorts(ctx_);
  for (const z3::expr& a : args) sorts.push_back(a.get_sort());
  for (const Tensor* t : operands) {
    args.push_back(shape_term(*t));
    sorts.push_back(shape_sort_);
  }
  for (const z3::expr& a : attrs) {
    args.push_back(a);
    sorts.push_back(a.get_sort());
  }
  z3::expr elements = ctx_.function(("op:" + op).c_str(), sorts, array)(args);
  valid.push_back(ctx_.function(("valid:" + op).c_str(), sorts, ctx_.bool_sort())(args));
  Tensor out;
  if (shape) {
    out.dims = shape->dims;
    out.shape = shape->shape;
  } else {
    abstract_ = true;
    out.shape = ctx_.function(("shape:" + op).c_str(), sorts, shape_sort_)(args);
  }
  const Tensor shaped = out;
  out.at = [this, elements, shaped](const Index& i) {
    return z3::select(elements, flat(shaped, i));
  };
  return out;
}

}  // namespace graft::ruletest
