// The prover's tensors (rule_terms.h): a value of a rule as its shape and its element at each
// index. A shape is known dim by dim when its rank is (a permute's dims fix it, `rank(x) == 4`
// states it, or the prover tries each rank), else it is an uninterpreted term: two values have
// equal shapes when their terms are equal, and the shape algebra (element counts, broadcasting,
// a reshape's result) is uninterpreted functions with the axioms the proofs need. Views keep the
// row-major element order, so they map an element's offset to itself; permutes map index tuples.
#pragma once

#include <z3++.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace graft::ruletest {

/// Where an element is: an index per dim, or its row-major offset.
struct Index {
  std::vector<z3::expr> tuple;
  std::optional<z3::expr> flat;
};

struct Tensor {
  std::optional<std::vector<z3::expr>> dims;  // the sizes, when the rank is known
  std::optional<z3::expr> shape;              // else an uninterpreted shape term
  std::function<z3::expr(const Index&)> at;   // the element at an index of this tensor
  std::string input;                          // the rule's input it is, if any
  /// The input whose rank, once known, gives this tensor's dims (its own, or an input's whose
  /// shape it has: relu(x)).
  std::string rank_input;
};

/// The prover needs the rank of input `input`: thrown where a permute or a rank condition
/// needs it of an input whose rank is open; the prover then tries each rank.
struct NeedRank {
  std::string input;
};

class TensorAlgebra {
 public:
  explicit TensorAlgebra(z3::context& ctx) : ctx_(ctx), shape_sort_(ctx.uninterpreted_sort("Shape")) {}

  /// Input `name`: of `rank` (open: nullopt), its element for an index tuple or, when the rank
  /// is open, for a row-major offset, given by `element`.
  Tensor input(const std::string& name, std::optional<int> rank,
               const std::function<z3::expr(const std::vector<z3::expr>&)>& element);
  static Tensor scalar(const z3::expr& value);

  z3::expr numel(const Tensor& t);
  z3::expr shape_term(const Tensor& t);
  /// Whether `a` and `b` have the same shape (a formula).
  z3::expr same_shape(const Tensor& a, const Tensor& b);
  /// `t`'s dims; throws NeedRank when they are an input's of open rank, Outside when they are
  /// a computed value's.
  const std::vector<z3::expr>& dims(const Tensor& t);
  /// The index tuple or the offset of an element of `t` at `i` (which may be either).
  std::vector<z3::expr> tuple(const Tensor& t, const Index& i);
  z3::expr flat(const Tensor& t, const Index& i);
  /// An index of `t` in range, made of fresh constants named after `name`, and its bounds.
  Index fresh_index(const Tensor& t, const std::string& name, z3::expr* in_range);

  /// The broadcast shape of `operands` (a tensor without elements); `valid` gets the condition
  /// that they broadcast.
  Tensor broadcast_shape(const std::vector<const Tensor*>& operands, std::vector<z3::expr>& valid);
  /// Whether `from` broadcasts to `to` without enlarging it.
  z3::expr broadcasts_to(const Tensor& from, const Tensor& to);
  /// The index of `operand`'s element that `result`'s element at `i` reads when broadcast.
  Index operand_index(const Tensor& operand, const Tensor& result, const Index& i);

  /// `in` with its dims reordered: result dim k is input dim `perm[k]`.
  Tensor permute(const Tensor& in, const std::vector<z3::expr>& perm);
  /// Result dims `dims`, or an opaque `shape`: the same elements in row-major order.
  Tensor view(const Tensor& in, std::optional<std::vector<z3::expr>> dims,
              std::optional<z3::expr> shape);
  /// The shape term of a reshape to the opaque size list `sizes` (a -1 in it inferred from
  /// `count` elements), with the axiom that it holds `count` elements.
  z3::expr reshaped(const z3::expr& sizes, const z3::expr& count);
  /// An opaque op's result: its elements one uninterpreted function of the operands' elements
  /// (as arrays) and of `attrs`; its shape `shape`, or a term of the same.
  Tensor opaque(const std::string& op, const std::vector<const Tensor*>& operands,
                const std::vector<z3::expr>& attrs, const z3::sort& element,
                std::optional<Tensor> shape, std::vector<z3::expr>& valid);
  z3::sort shape_sort() const { return shape_sort_; }

  /// `dims` at position `k`, which may be a term: an `ite` over the positions.
  z3::expr pick(const std::vector<z3::expr>& dims, const z3::expr& k);

  /// The axioms of the uninterpreted shape functions used so far.
  const std::vector<z3::expr>& axioms() const { return axioms_; }
  /// Whether a shape was left uninterpreted: a counterexample may then be spurious.
  bool abstract() const { return abstract_; }

 private:
  z3::expr ravel(const std::vector<z3::expr>& dims, const std::vector<z3::expr>& tuple);
  std::vector<z3::expr> unravel(const std::vector<z3::expr>& dims, const z3::expr& offset);
  z3::func_decl shape_function(const std::string& name, size_t arity, const z3::sort& range);
  /// The broadcast of shape terms, and whether they broadcast: one term per set of shapes.
  struct Broadcast {
    z3::expr shape;
    z3::expr valid;
  };
  Broadcast broadcast(const std::vector<z3::expr>& terms);

  z3::context& ctx_;
  z3::sort shape_sort_;
  std::vector<z3::expr> axioms_;
  bool abstract_ = false;
  std::map<unsigned, std::vector<z3::expr>> broadcast_atoms_;  // by the broadcast term's id
};

}  // namespace graft::ruletest
