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

std::optional<size_t> attr_list_size(const AttrValue& value) {
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) return ints->size();
  if (const auto* floats = std::get_if<std::vector<double>>(&value)) return floats->size();
  return std::nullopt;
}

std::optional<AttrValue> attr_list_item(const AttrValue& value, size_t i) {
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
    if (i < ints->size()) return AttrValue{(*ints)[i]};
  } else if (const auto* floats = std::get_if<std::vector<double>>(&value)) {
    if (i < floats->size()) return AttrValue{(*floats)[i]};
  }
  return std::nullopt;
}

bool attr_check_holds(const AttrCheck& check, const AttrValue& value) {
  switch (check.kind) {
    case AttrCheck::Kind::kList: {
      if (attr_list_size(value) != check.elements.size()) return false;
      for (size_t i = 0; i < check.elements.size(); ++i) {
        const AttrCheck& item = check.elements[i];
        if (item.kind == AttrCheck::Kind::kBind || item.kind == AttrCheck::Kind::kAny) continue;
        if (!attr_check_holds(item, *attr_list_item(value, i))) return false;
      }
      return true;
    }
    case AttrCheck::Kind::kAny:
      return true;
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

std::string var_name(uint32_t var, const std::vector<std::string>* attr_vars) {
  return attr_vars != nullptr && var < attr_vars->size() ? (*attr_vars)[var] : std::to_string(var);
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
    case AttrCheck::Kind::kList:
      // The bindings are part of the key: [$a, $a] and [$a, $b] are different checks.
      for (const AttrCheck& item : check.elements) {
        key += attr_check_key(item);
        if (item.kind == AttrCheck::Kind::kBind) key += std::to_string(item.var);
        key += ";";
      }
      break;
    case AttrCheck::Kind::kBind:
    case AttrCheck::Kind::kAny:
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
      return name + "=$" + var_name(check.var, attr_vars);
    case AttrCheck::Kind::kList: {
      std::string text = name + "=[";
      for (size_t i = 0; i < check.elements.size(); ++i) {
        const AttrCheck& item = check.elements[i];
        text += i > 0 ? ", " : "";
        if (item.kind == AttrCheck::Kind::kBind) {
          text += "$" + var_name(item.var, attr_vars);
        } else if (item.kind == AttrCheck::Kind::kEquals) {
          text += attr_to_string(item.value);
        } else {
          text += "_";
        }
      }
      return text + "]";
    }
    case AttrCheck::Kind::kAny:
      return name + "=_";
  }
  return name;
}

}  // namespace graft
