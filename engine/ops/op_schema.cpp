// Signature parsing ("conv2d(Tensor input, int[2] stride=1, …)") and attribute coercion.
#include "engine/ops/op_schema.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "engine/ops/symbolic_int.h"
#include "engine/support/check.h"
#include "engine/support/edit_distance.h"

namespace graft {
namespace {

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// Splits on commas that are not inside brackets.
std::vector<std::string> split_params(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty()) parts.push_back(trim(current));
  return parts;
}

/// Parses a default value written in Python: None, True, False, 1, 1e-5, 'none', [1, 1].
std::optional<AttrValue> parse_default(const std::string& text) {
  if (text == "None") return AttrValue{};
  if (text == "True") return AttrValue{true};
  if (text == "False") return AttrValue{false};
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"')) {
    return AttrValue{text.substr(1, text.size() - 2)};
  }
  if (!text.empty() && text.front() == '[') {
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool is_float = false;
    for (const std::string& item : split_params(text.substr(1, text.size() - 2))) {
      if (item.find_first_of(".eE") != std::string::npos) is_float = true;
      floats.push_back(std::strtod(item.c_str(), nullptr));
      ints.push_back(std::strtoll(item.c_str(), nullptr, 10));
    }
    if (is_float) return AttrValue{floats};
    return AttrValue{ints};
  }
  char* end = nullptr;
  if (text.find_first_of(".eEn") == std::string::npos) {
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (end && *end == '\0') return AttrValue{static_cast<int64_t>(v)};
    return std::nullopt;
  }
  double d = std::strtod(text.c_str(), &end);
  if (end && *end == '\0') return AttrValue{d};
  return std::nullopt;
}

std::optional<AttrType> parse_attr_type(std::string type, int* fixed_length) {
  *fixed_length = 0;
  size_t bracket = type.find('[');
  if (bracket != std::string::npos) {
    std::string inner = type.substr(bracket + 1, type.size() - bracket - 2);
    *fixed_length = inner.empty() ? 0 : std::atoi(inner.c_str());
    type = type.substr(0, bracket);
    if (type == "int") return AttrType::kInts;
    if (type == "float") return AttrType::kFloats;
    return std::nullopt;
  }
  if (type == "bool") return AttrType::kBool;
  if (type == "int") return AttrType::kInt;
  if (type == "float") return AttrType::kFloat;
  if (type == "str") return AttrType::kString;
  if (type == "Scalar") return AttrType::kScalar;
  return std::nullopt;
}

// `SymInt`, `SymInt[]` and `SymScalar`: int, int list and Scalar attributes that may hold
// symbols.
std::optional<AttrType> parse_attr_type(std::string type, int* fixed_length, bool* symbolic) {
  *symbolic = type == "SymInt" || type == "SymInt[]" || type == "SymScalar";
  if (!*symbolic) return parse_attr_type(std::move(type), fixed_length);
  if (type == "SymScalar") return parse_attr_type("Scalar", fixed_length);
  return parse_attr_type("int" + type.substr(6), fixed_length);
}

/// A SymInt[] value checked item by item: its symbols must be names, and a list without one
/// becomes the plain int list (SymInts always holds a symbol).
std::optional<AttrValue> coerce_sym_ints(SymInts items, std::string* error) {
  std::vector<int64_t> ints;
  for (size_t i = 0; i < items.size(); ++i) {
    if (const auto* n = std::get_if<int64_t>(&items[i])) {
      ints.push_back(*n);
    } else if (!is_symbol_name(std::get<std::string>(items[i]))) {
      *error = "item " + std::to_string(i) + " is not an int or a symbol such as 'T': got str '" +
               std::get<std::string>(items[i]) + "'";
      return std::nullopt;
    }
  }
  if (ints.size() == items.size()) return AttrValue{std::move(ints)};
  return AttrValue{std::move(items)};
}

}  // namespace

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "'" : ", '") + item + "'";
  return out;
}

std::optional<OpSchema> parse_op_signature(const std::string& signature, std::string* error) {
  size_t open = signature.find('(');
  if (open == std::string::npos || signature.back() != ')') {
    *error = "expected 'name(params)'";
    return std::nullopt;
  }
  OpSchema schema;
  schema.signature = signature;
  schema.name = trim(signature.substr(0, open));
  std::string body = signature.substr(open + 1, signature.size() - open - 2);
  for (const std::string& param : split_params(body)) {
    size_t space = param.find(' ');
    if (space == std::string::npos) {
      *error = "parameter '" + param + "' has no type";
      return std::nullopt;
    }
    std::string type = param.substr(0, space);
    std::string rest = trim(param.substr(space + 1));
    std::string name = rest;
    std::optional<std::string> default_text;
    if (size_t eq = rest.find('='); eq != std::string::npos) {
      name = trim(rest.substr(0, eq));
      default_text = trim(rest.substr(eq + 1));
    }
    if (type.rfind("Tensor", 0) == 0) {
      OperandSpec op;
      op.name = name;
      op.allow_scalar = type.find("|Scalar") != std::string::npos;
      std::string base = type.substr(0, type.find('|'));
      op.optional = base == "Tensor?";
      op.variadic = base == "Tensor[]";
      if (!schema.operands.empty() && schema.operands.back().variadic) {
        *error = "only the last operand may be variadic";
        return std::nullopt;
      }
      if (default_text && *default_text != "None") {
        *error = "operand '" + name + "' can only default to None";
        return std::nullopt;
      }
      schema.params.push_back({true, static_cast<uint32_t>(schema.operands.size())});
      schema.operands.push_back(op);
      continue;
    }
    AttrSpec attr;
    attr.name = name;
    attr.nullable = !type.empty() && type.back() == '?';
    if (attr.nullable) type.pop_back();
    std::optional<AttrType> attr_type = parse_attr_type(type, &attr.fixed_length, &attr.symbolic);
    if (!attr_type) {
      *error = "unknown parameter type '" + type + "'";
      return std::nullopt;
    }
    attr.type = *attr_type;
    if (default_text) {
      std::optional<AttrValue> value = parse_default(*default_text);
      std::string coerce_error;
      if (value) value = coerce_attr(attr, *value, &coerce_error);
      if (!value) {
        *error = "bad default '" + *default_text + "' for '" + name + "'";
        return std::nullopt;
      }
      attr.has_default = true;
      attr.default_value = *value;
    }
    schema.params.push_back({false, static_cast<uint32_t>(schema.attrs.size())});
    schema.attrs.push_back(attr);
  }
  return schema;
}

std::optional<AttrValue> coerce_attr(const AttrSpec& spec, AttrValue value,
                                     std::string* error) {
  auto fail = [&]() -> std::optional<AttrValue> {
    std::string expected = attr_type_name(spec.type);
    if (spec.symbolic && spec.type == AttrType::kInts) expected = "a list of ints and symbols";
    if (spec.fixed_length > 0 && (spec.type == AttrType::kInts || spec.type == AttrType::kFloats)) {
      expected = expected.substr(0, expected.size() - 2) + "[" + std::to_string(spec.fixed_length) + "]";
    }
    *error = "expected " + expected + (spec.nullable ? " or None" : "") + ", got " +
             attr_value_kind(value) + " " + attr_to_string(value);
    return std::nullopt;
  };
  if (is_none(value)) {
    if (spec.nullable) return value;
    return fail();
  }
  if (auto* items = std::get_if<SymInts>(&value)) {
    if (spec.symbolic && spec.type == AttrType::kInts && spec.fixed_length == 0) {
      return coerce_sym_ints(std::move(*items), error);
    }
    return fail();
  }
  const bool scalar = spec.type != AttrType::kInts;
  if (const auto* symbol = std::get_if<std::string>(&value); symbol && spec.symbolic && scalar) {
    if (parse_symbolic_int(*symbol)) return value;
    *error = "expected " + std::string(attr_type_name(spec.type)) +
             " or a symbol such as 'T' (or a sum of multiples of symbols and an int, 'T-1'), " +
             "got str " + attr_to_string(value);
    return std::nullopt;
  }
  switch (spec.type) {
    case AttrType::kBool:
      if (std::holds_alternative<bool>(value)) return value;
      return fail();
    case AttrType::kInt:
      if (std::holds_alternative<int64_t>(value)) return value;
      return fail();
    case AttrType::kFloat:
      if (const auto* i = std::get_if<int64_t>(&value)) return AttrValue{static_cast<double>(*i)};
      if (std::holds_alternative<double>(value)) return value;
      return fail();
    case AttrType::kScalar:
      if (std::holds_alternative<int64_t>(value) || std::holds_alternative<double>(value)) {
        return value;
      }
      return fail();
    case AttrType::kString: {
      const auto* str = std::get_if<std::string>(&value);
      if (str == nullptr) return fail();
      if (spec.choices.empty() ||
          std::find(spec.choices.begin(), spec.choices.end(), *str) != spec.choices.end()) {
        return value;
      }
      *error = "expected one of " + quoted_list(spec.choices) + ", got str " +
               attr_to_string(value) + did_you_mean(*str, spec.choices);
      return std::nullopt;
    }
    case AttrType::kInts: {
      std::vector<int64_t> list;
      if (const auto* i = std::get_if<int64_t>(&value)) {
        list.assign(spec.fixed_length > 0 ? static_cast<size_t>(spec.fixed_length) : 1, *i);
      } else if (auto* l = std::get_if<std::vector<int64_t>>(&value)) {
        // A wrong length fails before the list leaves `value`, which the message prints.
        if (spec.fixed_length > 0 && l->size() > 1 && l->size() != static_cast<size_t>(spec.fixed_length)) {
          return fail();
        }
        list = std::move(*l);
      } else if (const auto* d = std::get_if<std::vector<double>>(&value); d && d->empty()) {
        list = {};
      } else {
        return fail();
      }
      // One value stands for all; [] is accepted where a default means "same as another
      // parameter" (max_pool2d stride).
      if (spec.fixed_length > 0 && list.size() == 1) {
        list.assign(static_cast<size_t>(spec.fixed_length), list[0]);
      }
      return AttrValue{std::move(list)};
    }
    case AttrType::kFloats: {
      std::vector<double> list;
      if (const auto* d = std::get_if<double>(&value)) list = {*d};
      else if (const auto* i = std::get_if<int64_t>(&value)) list = {static_cast<double>(*i)};
      else if (auto* l = std::get_if<std::vector<double>>(&value)) list = std::move(*l);
      else if (const auto* li = std::get_if<std::vector<int64_t>>(&value)) list.assign(li->begin(), li->end());
      else return fail();
      return AttrValue{std::move(list)};
    }
  }
  return fail();
}

int OpSchema::operand_index(const std::string& operand_name) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].name == operand_name) return static_cast<int>(i);
  }
  return -1;
}

int OpSchema::attr_index(const std::string& attr_name) const {
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (attrs[i].name == attr_name) return static_cast<int>(i);
  }
  return -1;
}

size_t OpSchema::required_operand_count() const {
  size_t n = 0;
  for (const OperandSpec& op : operands) {
    if (!op.optional && !op.variadic) ++n;
  }
  return n;
}

bool OpSchema::in_class(const std::string& cls) const {
  for (const std::string& c : classes) {
    if (c == cls) return true;
  }
  return false;
}

std::vector<std::string> attr_symbols(const AttrSpec& spec, const AttrValue& value) {
  std::vector<std::string> symbols;
  if (const std::string* text = attr_symbol(spec, value)) {
    if (std::optional<SymbolicInt> expr = parse_symbolic_int(*text)) {
      for (const auto& term : expr->terms) symbols.push_back(term.first);
    }
  }
  if (const auto* items = spec.symbolic ? std::get_if<SymInts>(&value) : nullptr) {
    for (const SymInt& item : *items) {
      if (const auto* symbol = std::get_if<std::string>(&item)) symbols.push_back(*symbol);
    }
  }
  return symbols;
}

bool has_symbolic_attr(const OpSchema& schema, std::span<const AttrValue> values) {
  for (size_t i = 0; i < schema.attrs.size() && i < values.size(); ++i) {
    if (holds_symbol(schema.attrs[i], values[i])) return true;
  }
  return false;
}

bool is_symbol_name(const std::string& name) {
  auto head = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto tail = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !name.empty() && head(name[0]) && std::all_of(name.begin() + 1, name.end(), tail) &&
         name != "inf" && name != "nan";
}

namespace {

const AttrValue& lookup(const InferInputs& in, const std::string& name) {
  int index = in.schema->attr_index(name);
  GRAFT_CHECK(index >= 0) << in.schema->name << " has no attribute " << name;
  return in.attrs[static_cast<size_t>(index)];
}

}  // namespace

const AttrValue& InferInputs::attr(const std::string& name) const { return lookup(*this, name); }

int64_t InferInputs::int_attr(const std::string& name) const {
  const AttrValue& v = lookup(*this, name);
  GRAFT_CHECK(std::holds_alternative<int64_t>(v))
      << schema->name << "." << name << " is " << attr_to_string(v) << ", not an int";
  return std::get<int64_t>(v);
}

const std::string* InferInputs::symbol_attr(const std::string& name) const {
  int index = schema->attr_index(name);
  GRAFT_CHECK(index >= 0) << schema->name << " has no attribute " << name;
  return attr_symbol(schema->attrs[static_cast<size_t>(index)], attrs[static_cast<size_t>(index)]);
}

double InferInputs::float_attr(const std::string& name) const {
  const AttrValue& v = lookup(*this, name);
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

bool InferInputs::bool_attr(const std::string& name) const {
  return std::get<bool>(lookup(*this, name));
}

const std::vector<int64_t>& InferInputs::ints_attr(const std::string& name) const {
  return std::get<std::vector<int64_t>>(lookup(*this, name));
}

SymInts InferInputs::sym_ints_attr(const std::string& name) const {
  const AttrValue& v = lookup(*this, name);
  if (const auto* items = std::get_if<SymInts>(&v)) return *items;
  const auto& ints = std::get<std::vector<int64_t>>(v);
  return SymInts(ints.begin(), ints.end());
}

}  // namespace graft
