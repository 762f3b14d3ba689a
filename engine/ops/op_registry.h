// The op registry: every OpSchema of op_table.cpp, looked up by name, alias or id, with op
// classes and "did you mean" suggestions. It is built once, on first use, and never changes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ops/op_schema.h"

namespace graft {

class OpRegistry {
 public:
  /// The process-wide registry of built-in ops.
  static const OpRegistry& get();

  /// The op named `name` (or one of its aliases), or nullptr.
  const OpSchema* find(std::string_view name) const;
  const OpSchema& op(OpId id) const { return ops_[id]; }
  const std::vector<OpSchema>& ops() const { return ops_; }
  /// Ops in class `cls`, in table order; empty if the class does not exist.
  std::vector<const OpSchema*> op_class(std::string_view cls) const;
  std::vector<std::string> class_names() const;
  /// Every op name and alias, for "did you mean".
  std::vector<std::string> names() const;
  /// " (did you mean 'conv2d'?)" or "".
  std::string suggest(std::string_view name) const;

  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

 private:
  OpRegistry();
  std::vector<OpSchema> ops_;
  std::map<std::string, OpId, std::less<>> by_name_;  // names and aliases
};

/// The values one `str` attribute of an op accepts (AttrSpec::choices).
struct StrChoices {
  const char* attr;
  std::vector<std::string> values;
};

/// An op's semantic facts as a row states them (see op_facts.h and the helpers in
/// op_table.cpp); roles may list fewer operands than the op has (the rest are kElement).
struct OpFacts {
  OpFamily family = OpFamily::kNone;
  std::optional<ElementwiseFacts> elementwise = {};
  std::vector<OperandRole> roles = {};
  const char* no_reference = nullptr;  // why the op has no reference kernel
};

/// Adds one op to the table under construction; used only by op_table.cpp.
struct OpDef {
  const char* signature;
  std::vector<std::string> classes;
  InferFn infer;
  const char* doc;
  OpFacts facts;
  bool commutative = false;
  std::vector<std::string> aliases = {};
  /// For a commutative op: an attribute that must have a value for the operands to commute
  /// (`{"alpha", 1}` for add); empty when they always do.
  std::string commutes_if_attr = {};
  AttrValue commutes_if_value = {};
  /// The values of `str` attributes that accept only some (set after the row, as fused_op_defs
  /// does, so that rows need not spell the fields before it).
  std::vector<StrChoices> choices = {};
};
/// The rows of the op table: the torch ops (op_table.cpp) and the fused ops that rules
/// produce for the runtime (op_table_fused.cpp).
std::vector<OpDef> builtin_op_defs();
std::vector<OpDef> fused_op_defs();

}  // namespace graft
