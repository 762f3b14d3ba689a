// The rule IR the matcher and the rewrite driver run: patterns, conditions and replacements as
// plain data, independent of the .rules AST (dsl/lower.cpp produces it) and of any graph.
//
// A pattern is a DAG of PatNodes over *variables* (the pattern's parameters). A PatNode
// matches one graph node; distinct PatNodes match distinct graph nodes; every use of a variable
// matches the same value. Alternatives (`(relu | relu6)(x)`, op classes) are PatAlts of one
// PatNode. The replacement is a straight-line list of ops over the pattern's bindings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/attr.h"
#include "engine/ir/dtype.h"
#include "engine/ops/op_schema.h"
#include "engine/support/location.h"

namespace graft {

/// What one operand position of a pattern op must be.
struct PatValue {
  enum class Kind : uint8_t {
    kAny,        // `_`: anything, including None or a scalar
    kVar,        // a pattern parameter: a node, or None when the variable is optional
    kNode,       // the result of another PatNode
    kNone,       // `none`: an absent optional operand
    kScalar,     // a scalar literal operand (`add(x, 0)`), within `tolerance`
    kScalarVar,  // `$c` in an operand position: a scalar literal, bound to attribute var `index`
  };
  Kind kind = Kind::kAny;
  uint32_t index = 0;  // kVar: variable; kNode: PatNode; kScalarVar: attribute variable
  double scalar = 0;
  double tolerance = 0;
};

/// A check of one attribute of a matched op.
struct AttrCheck {
  enum class Kind : uint8_t {
    kEquals,  // == value (floats within `tolerance`)
    kBind,    // bound to attribute var `var`; bound twice means equal
    kIn,      // one of `values`
    kRange,   // lo <= value <= hi (numbers)
    kList,    // a list of elements.size() items, item i checked by elements[i]
    kAny,     // any value: `_` as an item of a kList
  };
  Kind kind = Kind::kEquals;
  uint32_t attr = 0;  // index into the alternative's schema attrs
  AttrValue value;    // kEquals
  double tolerance = 0;
  uint32_t var = 0;               // kBind
  std::vector<AttrValue> values;  // kIn
  double lo = 0, hi = 0;          // kRange
  /// kList (`stride=[$s, $s]`, `shape=[$n, _, 4]`): kEquals, kBind or kAny per item.
  std::vector<AttrCheck> elements;
};

/// One alternative op of a PatNode with its operands bound to that op's schema.
struct PatAlt {
  const OpSchema* schema = nullptr;
  /// One entry per non-variadic schema operand (an omitted optional operand is kNone, an
  /// omitted required one kAny), then the variadic operand's items when it has one.
  std::vector<PatValue> operands;
  /// For a variadic op: true when the items are not listed (`_`): any number is accepted and
  /// `operands` holds only the fixed ones.
  bool variadic_any = false;
  std::vector<AttrCheck> attrs;
};

struct PatNode {
  std::vector<PatAlt> alts;
  /// Operands 0 and 1 may be matched swapped (every alternative is commutative and the call
  /// was not written `ordered`).
  bool commutative = false;
  std::string name;  // the pattern's name for it (`y`), or "" for an unnamed sub-expression
  std::string loc;   // "file.rules:12:7", for --explain
};

/// A value a condition or replacement refers to: a variable or a PatNode's result.
struct ValueRef {
  enum class Kind : uint8_t { kVar, kNode };
  Kind kind = Kind::kVar;
  uint32_t index = 0;
};

/// One side of a `where` comparison.
struct Term {
  enum class Kind : uint8_t {
    kNumber,    // number (int when is_int)
    kString,    // string
    kBool,      // flag
    kDType,     // dtype
    kNone,      // none
    kSymbol,    // a dim symbol of the rule (`N`): bound on first use, compared after
    kWildcard,  // `_` in a shape list
    kEllipsis,  // `...` in a shape list
    kAttrVar,   // $name (var)
    kUses,      // uses(value)
    kRank,      // rank(value)
    kDim,       // dim(value, number)
    kDTypeOf,   // dtype(value)
    kNameOf,    // name(value): a constant's name (its get_attr target), another node's name
    kShapeOf,   // shape(value)
    kList,      // [items] (a shape: numbers, symbols, `_`, one `...`; or an attribute list)
    kSet,       // {items}
    kRange,     // lo..hi (items[0], items[1])
  };
  Kind kind = Kind::kNumber;
  double number = 0;
  bool is_int = false;
  double tolerance = 0;  // kNumber written `v ~ tol`
  std::string string;
  bool flag = false;
  DType dtype = DType::kFloat32;
  uint32_t var = 0;  // kAttrVar: attribute var; kSymbol: symbol id
  ValueRef value;    // kUses .. kShapeOf
  int64_t dim = 0;   // kDim
  std::vector<Term> items;
};

enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn };

struct Condition {
  enum class Kind : uint8_t {
    kConst,      // every value in `values` is a get_attr (an absent optional counts as constant)
    kParameter,  // every value in `values` is a constant that is an nn.Parameter (not a buffer)
    kBuffer,     // every value in `values` is a constant that is a buffer
    kValue,      // values[0] is a constant and each of its elements satisfies `op rhs`
    kOutput,     // values[0] is a graph output
    kCompare,    // lhs op rhs
  };
  Kind kind = Kind::kCompare;
  bool negated = false;
  std::vector<ValueRef> values;
  Term lhs;
  CmpOp op = CmpOp::kEq;
  Term rhs;          // kCompare; kValue: a number (with its tolerance), a set of them, or a range
  std::string text;  // as written, for --explain
  std::string loc;
};

/// One operand or attribute value of a replacement op.
struct ReplValue {
  enum class Kind : uint8_t {
    kNone,      // None
    kValue,     // a pattern binding (variable or PatNode result)
    kResult,    // the result of replacement op `index`
    kScalar,    // a scalar literal
    kAttrVar,   // the value bound to attribute var `index` (a scalar operand or attribute)
    kLiteral,   // an attribute literal (`stride=[1, 1]`, `approximate="tanh"`)
    kCoalesce,  // `a ?? b`: items[0] unless it is None, else items[1]
    kSymbol,    // an int attribute: the dim that `where` bound to dim symbol `index` (`D`)
    kDimList,   // an int-list attribute of kScalar ints, kSymbol dims and kAttrVar ints
                //   (`[D]`, `[1, D]`, `[$s, $s]`)
    kOpName,    // a str attribute: the name of the op PatNode `index` matched (`op_name(act)`)
  };
  Kind kind = Kind::kNone;
  ValueRef value;
  uint32_t index = 0;
  Scalar scalar;
  AttrValue literal;
  std::vector<ReplValue> items;
};

/// One op the replacement creates.
struct ReplOp {
  const OpSchema* schema = nullptr;
  /// One per flattened schema operand (variadic items last); omitted optionals are kNone.
  std::vector<ReplValue> operands;
  /// Per schema attribute: kLiteral / kAttrVar / kSymbol / kDimList / kOpName, or kNone to
  /// take the schema default.
  std::vector<ReplValue> attrs;
  bool must_fold = false;  // written inside fold(...): must become a constant
  std::string name;        // the replacement's name for it, or ""
  std::string loc;
  SourceRange range;       // the call in the rules text, for the driver's located errors
};

struct Rule {
  std::string name;
  std::string loc;  // "fusion.rules:12", for provenance and --explain
  /// The rule's name in the rules text: the driver's diagnostics about the rule point here
  /// (with a caret when the DiagnosticEngine has the SourceManager that holds the text).
  SourceRange range;
  std::string doc;  // its `///` doc comment without the slashes, lines joined by '\n'; or ""
  int benefit = 0;
  std::vector<std::string> var_names;       // pattern parameters, in order
  std::vector<bool> var_optional;           // `b?`
  std::vector<std::string> attr_var_names;  // `$s` (without '$')
  uint32_t symbol_count = 0;                // dim symbols of the where clauses
  /// Dim symbols the replacement reads: a match must bind each to a concrete size.
  std::vector<uint32_t> replacement_symbols;
  std::vector<PatNode> nodes;  // topological: operands refer only to earlier nodes
  std::vector<uint32_t> roots;              // the returned PatNodes, in return order
  std::vector<Condition> conditions;
  std::vector<ReplOp> replacement;          // in order
  std::vector<ReplValue> results;           // one per root
  /// One per root: where the replacement returns it ("fusion.rules:14:12"); may be empty.
  std::vector<std::string> result_locs;
  std::vector<SourceRange> result_ranges;  // the same positions as source ranges
};

enum class PhaseMode : uint8_t { kOnce, kFixpoint };

struct Phase {
  std::string name;
  PhaseMode mode = PhaseMode::kOnce;
  int max_iterations = 1;
  std::vector<uint32_t> rules;  // indices into RuleSet::rules
};

/// A rule set as the engine runs it; produced by dsl::lower().
struct RuleSet {
  std::vector<Rule> rules;
  std::vector<Phase> phases;
  int find_rule(const std::string& name) const;
  /// The rules and phases as stable, readable text, one line per pattern node, condition and
  /// replacement op (engine/match/rule_set_dump.cpp; docs/matcher.md#reading-the-dumps).
  std::string dump() const;
};

}  // namespace graft
