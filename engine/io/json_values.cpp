#include "engine/io/json_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/ops/op_schema.h"

namespace graft {

std::optional<double> nonfinite_from_string(std::string_view s) {
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  if (s == "nan") return NAN;
  return std::nullopt;
}

namespace {

/// A number, or a non-finite float as its string; nullopt and `error` set for any other string.
std::optional<double> float_from_json(const nlohmann::json& j, std::string* error) {
  if (!j.is_string()) return j.get<double>();
  std::optional<double> d = nonfinite_from_string(j.get_ref<const std::string&>());
  if (!d) *error = "expected a number, got str " + j.dump() + kNonfiniteHint;
  return d;
}

nlohmann::json float_to_json(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

}  // namespace

std::optional<AttrValue> attr_from_json(const nlohmann::json& j, AttrType expected,
                                        std::string* error) {
  bool floating = expected == AttrType::kFloat || expected == AttrType::kScalar;
  if (floating && j.is_string()) {
    std::optional<double> d = float_from_json(j, error);
    if (!d) return std::nullopt;
    return AttrValue{*d};
  }
  return attr_from_json(j, error);
}

std::optional<AttrValue> attr_from_json(const nlohmann::json& j, std::string* error) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return AttrValue{};
    case nlohmann::json::value_t::boolean:
      return AttrValue{j.get<bool>()};
    case nlohmann::json::value_t::number_integer:
      return AttrValue{j.get<int64_t>()};
    case nlohmann::json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        *error = "integer " + j.dump() + " does not fit in int64";
        return std::nullopt;
      }
      return AttrValue{j.get<int64_t>()};
    case nlohmann::json::value_t::number_float:
      return AttrValue{j.get<double>()};
    case nlohmann::json::value_t::string:
      return AttrValue{j.get<std::string>()};
    case nlohmann::json::value_t::array: {
      bool all_int = true;
      for (const auto& e : j) {
        if (e.is_number_float()) {
          all_int = false;
        } else if (!e.is_number_integer()) {
          *error = "a list attribute holds only numbers, got " + std::string(e.type_name()) +
                   " " + e.dump();
          return std::nullopt;
        }
      }
      if (all_int) {
        std::vector<int64_t> ints;
        for (const auto& e : j) {
          if (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
            *error = "integer " + e.dump() + " does not fit in int64";
            return std::nullopt;
          }
          ints.push_back(e.get<int64_t>());
        }
        return AttrValue{ints};
      }
      std::vector<double> floats;
      for (const auto& e : j) floats.push_back(e.get<double>());
      return AttrValue{floats};
    }
    default:
      *error = "expected a number, bool, string, list or null, got " + std::string(j.type_name());
      return std::nullopt;
  }
}

std::optional<AttrValue> sym_ints_from_json(const nlohmann::json& j, std::string* error,
                                            int64_t* bad_item) {
  *bad_item = -1;
  if (!j.is_array()) {
    *error = "expected a list of ints and symbols, got " + std::string(j.type_name()) + " " +
             j.dump();
    return std::nullopt;
  }
  SymInts items;
  bool symbolic = false;
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& e = j[i];
    *bad_item = static_cast<int64_t>(i);
    if (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      *error = "integer " + e.dump() + " does not fit in int64";
      return std::nullopt;
    }
    if (e.is_number_integer()) {
      items.emplace_back(e.get<int64_t>());
    } else if (e.is_string() && is_symbol_name(e.get_ref<const std::string&>())) {
      items.emplace_back(e.get<std::string>());
      symbolic = true;
    } else {
      *error = "expected an int or a symbol such as 'T', got " +
               (e.is_string() ? "str '" + e.get<std::string>() + "'"
                              : std::string(e.type_name()) + " " + e.dump());
      return std::nullopt;
    }
  }
  *bad_item = -1;
  if (symbolic) return AttrValue{std::move(items)};
  std::vector<int64_t> ints;
  for (const SymInt& item : items) ints.push_back(std::get<int64_t>(item));
  return AttrValue{std::move(ints)};
}

nlohmann::json attr_to_json(const AttrValue& value) {
  struct Visitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(bool b) const { return b; }
    nlohmann::json operator()(int64_t i) const { return i; }
    nlohmann::json operator()(double d) const { return float_to_json(d); }
    nlohmann::json operator()(const std::string& s) const { return s; }
    nlohmann::json operator()(const std::vector<int64_t>& v) const { return v; }
    nlohmann::json operator()(const std::vector<double>& v) const {
      nlohmann::json list = nlohmann::json::array();
      for (double d : v) list.push_back(float_to_json(d));
      return list;
    }
    nlohmann::json operator()(const SymInts& v) const {
      nlohmann::json list = nlohmann::json::array();
      for (const SymInt& item : v) {
        std::visit([&list](const auto& x) { list.push_back(x); }, item);
      }
      return list;
    }
  };
  return std::visit(Visitor{}, value);
}

std::optional<Scalar> scalar_from_json(const nlohmann::json& j, std::string* error) {
  if (j.is_number_float() || j.is_string()) {
    std::optional<double> d = float_from_json(j, error);
    if (!d) return std::nullopt;
    return Scalar{*d, false};
  }
  if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    *error = "integer " + j.dump() + " does not fit in int64";
    return std::nullopt;
  }
  int64_t i = j.get<int64_t>();
  double d = static_cast<double>(i);
  if (exact_int64(d) != i) {
    *error = "integer " + j.dump() + " has no exact float64 value, which graft computes " +
             "scalar operands in (it would become " + nlohmann::json(d).dump() + ")";
    return std::nullopt;
  }
  return Scalar{d, true};
}

std::optional<nlohmann::json> scalar_to_json(const Scalar& s) {
  if (!s.is_int) return float_to_json(s.value);
  std::optional<int64_t> i = exact_int64(s.value);
  if (!i) return std::nullopt;
  return nlohmann::json(*i);
}

void append_json_string(std::string& out, std::string_view s, bool replace_invalid) {
  bool plain = std::all_of(s.begin(), s.end(),
                           [](char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; });
  if (!plain) {
    out += nlohmann::json(std::string(s))
               .dump(-1, ' ', false,
                     replace_invalid ? nlohmann::json::error_handler_t::replace
                                     : nlohmann::json::error_handler_t::strict);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

void append_json_integer(std::string& out, int64_t i) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, i).ptr);
}

void append_json_integer(std::string& out, uint64_t u) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, u).ptr);
}

std::string json_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace graft
