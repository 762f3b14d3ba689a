// OpSchema: the one declaration of an operator — its operands (tensor inputs: optional,
// variadic, scalar-or-tensor, commutative), its attributes (type, default), its op classes
// and its shape/dtype inference. Loader, rules compiler, shape inference and runtime all read
// ops from here (see op_table.cpp for the rows and op_registry.h for lookup), and eval/ and
// runtime/ pick an op's kernels by its facts (op_facts.h), not by its name.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/attr.h"
#include "engine/ir/shape.h"
#include "engine/ops/op_facts.h"

namespace graft {

using OpId = uint16_t;

struct OperandSpec {
  std::string name;
  bool optional = false;     // `Tensor?`: may be None
  bool variadic = false;     // `Tensor[]`: any number of tensors (only the last operand)
  bool allow_scalar = false; // `Tensor|Scalar`: may be a scalar literal (x * 0.5)
};

struct AttrSpec {
  std::string name;
  AttrType type = AttrType::kInt;
  bool nullable = false;      // `int?`: None allowed
  /// `SymInt` (an int) or `SymScalar` (a Scalar), as torch's SymInt: the value may also be a
  /// symbol ("T") or a sum of multiples of symbols and an int ("T-1", engine/ops/symbolic_int.h),
  /// held as its text in a std::string, that stands for its value once the symbols are bound
  /// (eval/concretize.h substitutes it). `SymInt[]` (kInts): the items may be symbols, and a
  /// list with one is held as SymInts.
  bool symbolic = false;
  int fixed_length = 0;       // `int[2]`: a scalar is broadcast to this length; 0 = any length
  bool has_default = false;
  AttrValue default_value;
  /// The values a `str` attribute accepts, as an enum would (conv2d_post's activation names);
  /// empty: any string.
  std::vector<std::string> choices;
};

/// One parameter of the Python-style signature, in declaration order; operands and attributes
/// interleave (conv2d(input, weight, bias, stride, …)), so positional args bind through this.
struct Param {
  bool is_operand = false;
  uint32_t index = 0;  // into operands or attrs
};

/// What a shape function sees: the types of the operands (nullopt for absent or scalar
/// operands) and the attribute values (defaults filled in).
struct InferInputs {
  const struct OpSchema* schema = nullptr;
  // One per flattened input: null for an absent or scalar operand. The types belong to the
  // caller (the input nodes' meta, sema's values) and outlive the shape function's call.
  std::vector<const TensorType*> operand_types;
  std::vector<std::optional<Scalar>> scalars;            // set where the input is a literal
  std::span<const AttrValue> attrs;  // one per schema attribute; the caller owns them
  size_t variadic_begin = 0;                             // first input of the variadic operand

  const TensorType* type(size_t input) const {
    return input < operand_types.size() ? operand_types[input] : nullptr;
  }
  int64_t int_attr(const std::string& name) const;
  /// The symbol (or sum of symbols) a SymInt attribute holds, or null when it holds a number or
  /// None.
  const std::string* symbol_attr(const std::string& name) const;
  double float_attr(const std::string& name) const;
  bool bool_attr(const std::string& name) const;
  const std::vector<int64_t>& ints_attr(const std::string& name) const;
  /// A `SymInt[]` attribute's items, numbers and symbols alike.
  SymInts sym_ints_attr(const std::string& name) const;
  const AttrValue& attr(const std::string& name) const;
};

/// Returns the result type, or nullopt after setting `*error` to a message like
/// "conv2d: weight has 3 dims, expected 4".
using InferFn = std::optional<TensorType> (*)(const InferInputs& in, std::string* error);

struct OpSchema {
  OpId id = 0;
  std::string name;                  // "conv2d"
  std::string signature;             // the declaration text, for docs and --help
  std::vector<std::string> aliases;  // other accepted targets ("view" for reshape)
  std::vector<std::string> classes;  // op classes usable in rules ("activation", "unary", …)
  std::vector<OperandSpec> operands;
  std::vector<AttrSpec> attrs;
  std::vector<Param> params;         // signature order
  bool commutative = false;          // operands 0 and 1 may be swapped (see commutes())
  /// For an op commutative only for some attribute values (`add`: input + alpha * other):
  /// the attribute, by index (-1: none), and the value it must have.
  int commutes_if_attr = -1;
  AttrValue commutes_if_value;
  InferFn infer = nullptr;
  std::string doc;                   // one line
  // ** semantic facts (op_facts.h) **
  OpFamily family = OpFamily::kNone;
  std::optional<ElementwiseFacts> elementwise;  // kUnary and kBinary ops
  std::vector<OperandRole> roles;    // one per operand
  /// Why the op has no reference kernel (its family has none); empty when it has one.
  std::string no_reference;

  int operand_index(const std::string& operand_name) const;
  int attr_index(const std::string& attr_name) const;
  bool has_variadic() const { return !operands.empty() && operands.back().variadic; }
  /// Number of operands that must be present (not optional, not variadic).
  size_t required_operand_count() const;
  bool in_class(const std::string& cls) const;
  /// Whether a node of this op with attribute values `values` (one per schema attribute)
  /// computes the same with operands 0 and 1 swapped: `add` with alpha=1, not with alpha=2.
  bool commutes(std::span<const AttrValue> values) const {
    return commutative &&
           (commutes_if_attr < 0 || attr_equal(values[static_cast<size_t>(commutes_if_attr)],
                                               commutes_if_value));
  }
};

/// The text of the symbol (or sum of symbols, "T-1") `value` holds if `spec` is symbolic
/// (SymInt, SymScalar) and the value is one, else null.
inline const std::string* attr_symbol(const AttrSpec& spec, const AttrValue& value) {
  return spec.symbolic ? std::get_if<std::string>(&value) : nullptr;
}
/// Whether `value` names a symbol where `spec` is symbolic: a SymInt's "T", a SymInt[] with one.
inline bool holds_symbol(const AttrSpec& spec, const AttrValue& value) {
  return spec.symbolic &&
         (std::holds_alternative<std::string>(value) || std::holds_alternative<SymInts>(value));
}
/// The symbols `value` names where `spec` is symbolic, in order (repeats kept); empty for
/// numbers.
std::vector<std::string> attr_symbols(const AttrSpec& spec, const AttrValue& value);
/// Whether any of `values` (one per attribute of `schema`) names a symbol.
bool has_symbolic_attr(const OpSchema& schema, std::span<const AttrValue> values);
/// Whether `name` can name a symbol: an identifier other than inf and nan (which name floats
/// in model.json).
bool is_symbol_name(const std::string& name);

/// Parses a declaration like
///   "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int groups=1)"
/// into a schema (without id, classes, infer, facts). Returns nullopt and sets `error` if
/// malformed; the op table treats that as a programmer error.
std::optional<OpSchema> parse_op_signature(const std::string& signature, std::string* error);

/// Checks `value` against `spec`, converting where torch would (an int where a float is
/// expected; a scalar where `int[2]` is expected is broadcast). Returns nullopt and sets
/// `error` ("expected int[2], got str", "expected one of 'none', 'relu', got str 'rleu' (did
/// you mean 'relu'?)") otherwise.
std::optional<AttrValue> coerce_attr(const AttrSpec& spec, AttrValue value, std::string* error);

/// "'none', 'relu', 'relu6'": `items` quoted and joined, for messages that list choices.
std::string quoted_list(const std::vector<std::string>& items);

}  // namespace graft
