// Reads an elementwise node's formula and parameters from its attributes (see node_formula.h).
#include "eval/node_formula.h"

namespace graft::eval {
namespace {

std::optional<double> param_value(const OpSchema& schema, const FormulaParam& p,
                                  std::span<const AttrValue> attrs, std::string* error) {
  if (p.index < 0) return p.none_value;
  const AttrValue& v = attrs[static_cast<size_t>(p.index)];
  if (is_none(v)) return p.none_value;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  *error = "op '" + schema.name + "': attribute '" + p.attr + "' is not a number";
  return std::nullopt;
}

/// The formula the variant attributes select: the row's own for None or 'none'.
std::optional<Formula> variant_formula(const OpSchema& schema, const ElementwiseFacts& facts,
                                       std::span<const AttrValue> attrs, std::string* error) {
  if (facts.variants.empty()) return facts.formula;
  const FormulaVariant& first = facts.variants.front();
  const auto* value = std::get_if<std::string>(&attrs[static_cast<size_t>(first.index)]);
  if (value == nullptr || *value == "none") return facts.formula;
  std::vector<std::string> allowed = {"none"};
  for (const FormulaVariant& v : facts.variants) {
    if (v.value == *value) return v.formula;
    allowed.push_back(v.value);
  }
  *error = schema.name + " " + first.attr + " must be None or one of " + quoted_list(allowed) +
           ", got '" + *value + "'";
  return std::nullopt;
}

}  // namespace

std::optional<NodeFormula> node_formula(const OpSchema& schema, std::span<const AttrValue> attrs,
                                        std::string* error) {
  if (!schema.elementwise) {
    *error = "op '" + schema.name + "' has no elementwise formula";
    return std::nullopt;
  }
  const ElementwiseFacts& facts = *schema.elementwise;
  std::optional<Formula> formula = variant_formula(schema, facts, attrs, error);
  std::optional<double> alpha = param_value(schema, facts.alpha, attrs, error);
  std::optional<double> beta = param_value(schema, facts.beta, attrs, error);
  if (!formula || !alpha || !beta) return std::nullopt;
  return NodeFormula{*formula, {*alpha, *beta}};
}

}  // namespace graft::eval
