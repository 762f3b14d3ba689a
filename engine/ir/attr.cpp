// Attribute printing and comparison.
#include "engine/ir/attr.h"

#include <fmt/format.h>

#include <cmath>

namespace graft {

const char* attr_type_name(AttrType type) {
  switch (type) {
    case AttrType::kBool:
      return "bool";
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kString:
      return "str";
    case AttrType::kInts:
      return "int[]";
    case AttrType::kFloats:
      return "float[]";
    case AttrType::kScalar:
      return "Scalar";
  }
  return "?";
}

const char* attr_value_kind(const AttrValue& value) {
  switch (value.index()) {
    case 0:
      return "None";
    case 1:
      return "bool";
    case 2:
      return "int";
    case 3:
      return "float";
    case 4:
      return "str";
    case 5:
      return "int[]";
    case 6:
      return "float[]";
    default:
      return "SymInt[]";
  }
}

namespace {

// Shortest text that reads back to the same double ("1e-05", "0.1", "2.0").
std::string float_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string attr_to_string(const AttrValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return float_text(d); }
    // fmt rather than operator+ chains: GCC 12 reports a false -Wrestrict in
    // `"[" + std::string(...)` under -O3 (GCC bug 105329).
    std::string operator()(const std::string& s) const { return fmt::format("'{}'", s); }
    std::string operator()(const std::vector<int64_t>& v) const {
      return fmt::format("[{}]", fmt::join(v, ", "));
    }
    std::string operator()(const std::vector<double>& v) const {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + float_text(v[i]);
      return out + "]";
    }
    std::string operator()(const SymInts& v) const {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ", ";
        const auto* symbol = std::get_if<std::string>(&v[i]);
        out += symbol ? *symbol : std::to_string(std::get<int64_t>(v[i]));
      }
      return out + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

bool is_none(const AttrValue& value) { return std::holds_alternative<std::monostate>(value); }

bool attr_equal(const AttrValue& a, const AttrValue& b) {
  if (const auto* ai = std::get_if<int64_t>(&a)) {
    if (const auto* bd = std::get_if<double>(&b)) return static_cast<double>(*ai) == *bd;
  }
  if (const auto* ad = std::get_if<double>(&a)) {
    if (const auto* bi = std::get_if<int64_t>(&b)) return *ad == static_cast<double>(*bi);
  }
  return a == b;
}

std::string scalar_to_string(const Scalar& s) {
  std::optional<int64_t> i = s.is_int ? exact_int64(s.value) : std::nullopt;
  return i ? std::to_string(*i) : float_text(s.value);
}

std::optional<int64_t> exact_int64(double d) {
  // -2^63 and 2^63 are exact doubles: [-2^63, 2^63) converts without overflow.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != std::floor(d)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(d);
}

}  // namespace graft
