#include "engine/match/attr_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace graft {

std::optional<double> attr_number(const AttrValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

bool attr_matches(const AttrValue& value, const AttrValue& expected, double tolerance) {
  if (tolerance > 0) {
    auto a = attr_number(value), b = attr_number(expected);
    if (a && b) return *a == *b || std::fabs(*a - *b) <= tolerance;
  }
  return attr_equal(value, expected);
}

bool attr_check_holds(const AttrCheck& check, const AttrValue& value) {
  switch (check.kind) {
    case AttrCheck::Kind::kEquals:
      return attr_matches(value, check.value, check.tolerance);
    case AttrCheck::Kind::kIn:
      return std::any_of(check.values.begin(), check.values.end(),
                         [&](const AttrValue& v) { return attr_equal(value, v); });
    case AttrCheck::Kind::kRange: {
      auto x = attr_number(value);
      return x && *x >= check.lo && *x <= check.hi;
    }
    case AttrCheck::Kind::kBind:
      return true;
  }
  return false;
}

namespace {

void append_double(std::string& key, double v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  key.append(bytes, sizeof v);
}

}  // namespace

std::string attr_check_key(const AttrCheck& check) {
  // attr_to_string is unambiguous per type (strings quoted, lists bracketed); a type tag keeps
  // 1 (int) and 1.0 (float) apart where attr_equal does.
  auto value_key = [](const AttrValue& v) { return std::to_string(v.index()) + ":" + attr_to_string(v); };
  std::string key = std::to_string(static_cast<int>(check.kind)) + "/" + std::to_string(check.attr) + "/";
  switch (check.kind) {
    case AttrCheck::Kind::kEquals:
      key += value_key(check.value);
      append_double(key, check.tolerance);
      break;
    case AttrCheck::Kind::kIn:
      for (const AttrValue& v : check.values) key += value_key(v) + ";";
      break;
    case AttrCheck::Kind::kRange:
      append_double(key, check.lo);
      append_double(key, check.hi);
      break;
    case AttrCheck::Kind::kBind:
      break;
  }
  return key;
}

std::string attr_check_text(const OpSchema& op, const AttrCheck& check,
                            const std::vector<std::string>* attr_vars) {
  std::string name = check.attr < op.attrs.size() ? op.attrs[check.attr].name : "#" + std::to_string(check.attr);
  switch (check.kind) {
    case AttrCheck::Kind::kEquals:
      return name + "=" + attr_to_string(check.value) +
             (check.tolerance > 0 ? fmt::format("~{}", check.tolerance) : "");
    case AttrCheck::Kind::kIn: {
      std::string text = name + " in {";
      for (size_t i = 0; i < check.values.size(); ++i) {
        text += (i > 0 ? ", " : "") + attr_to_string(check.values[i]);
      }
      return text + "}";
    }
    case AttrCheck::Kind::kRange:
      return fmt::format("{} in {}..{}", name, check.lo, check.hi);
    case AttrCheck::Kind::kBind:
      return name + "=$" + (attr_vars != nullptr && check.var < attr_vars->size()
                                ? (*attr_vars)[check.var]
                                : std::to_string(check.var));
  }
  return name;
}

}  // namespace graft
