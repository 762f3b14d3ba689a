// Attribute values of call_function nodes (the non-tensor parameters: stride, eps, dim, …) and
// scalar operands (torch.fx's `x * 0.5`). Equality and printing live here too.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace graft {

/// One item of a symbolic int list (a `SymInt[]` attribute): a number or a symbol's name ("T").
using SymInt = std::variant<int64_t, std::string>;
/// A `SymInt[]` value that names at least one symbol (reshape's [-1, T, 12, 64]). A list of
/// numbers only is always held as std::vector<int64_t> (coerce_attr makes it so), so every op
/// reads concrete sizes as before and only symbolic lists need the symbols' values.
using SymInts = std::vector<SymInt>;

/// None, bool, int, float, string, int list, float list — the value kinds torch.fx records
/// for non-tensor arguments — and the symbolic int list. std::monostate is Python's None.
using AttrValue = std::variant<std::monostate, bool, int64_t, double, std::string,
                               std::vector<int64_t>, std::vector<double>, SymInts>;

/// The declared type of an attribute in an op schema.
enum class AttrType { kBool, kInt, kFloat, kString, kInts, kFloats, kScalar };

const char* attr_type_name(AttrType type);
/// The AttrType a value has (kScalar is never returned; None has no type).
const char* attr_value_kind(const AttrValue& value);
/// Python-like text: None, True, 3, 1e-05, 'none', [1, 1]; a symbolic list's symbols print
/// bare, as in shapes: [-1, T, 12, 64].
std::string attr_to_string(const AttrValue& value);
bool is_none(const AttrValue& value);
/// Exact equality, except that an int and a float compare by value (1 == 1.0).
bool attr_equal(const AttrValue& a, const AttrValue& b);
/// The same kind and the same bits: unlike ==, -0.0 and 0.0 differ and a NaN is identical to
/// itself. For memos whose results depend on the values (a prepared fold computes x * -0.0
/// and x * 0.0 differently).
inline bool attrs_identical(const std::vector<AttrValue>& a, const std::vector<AttrValue>& b);

/// A scalar operand literal. Integers are kept apart from floats because torch keeps
/// `x + 1` and `x + 1.0` apart (type promotion), and printing should round-trip.
struct Scalar {
  double value = 0;
  bool is_int = false;
  bool operator==(const Scalar&) const = default;
};
std::string scalar_to_string(const Scalar& s);
/// `d` as an int64 if it is a whole number in int64's range, else nullopt (there, a cast would
/// be undefined behaviour). An integer Scalar's value read back as an integer.
std::optional<int64_t> exact_int64(double d);
/// The same value bits and kind (see attrs_identical).
inline bool scalars_identical(const Scalar& a, const Scalar& b);

// Inline: the rewrite driver's type memo compares an attribute list per replacement op.
namespace attr_detail {
inline bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}
inline bool identical(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) return same_bits(*x, *std::get_if<double>(&b));
  if (const auto* x = std::get_if<std::vector<double>>(&a)) {
    const auto& y = *std::get_if<std::vector<double>>(&b);
    return x->size() == y.size() && std::equal(x->begin(), x->end(), y.begin(), same_bits);
  }
  return a == b;
}
}  // namespace attr_detail

/// attrs_identical for one value.
inline bool attrs_identical_one(const AttrValue& a, const AttrValue& b) {
  return attr_detail::identical(a, b);
}

inline bool attrs_identical(const std::vector<AttrValue>& a, const std::vector<AttrValue>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), attr_detail::identical);
}

inline bool scalars_identical(const Scalar& a, const Scalar& b) {
  return a.is_int == b.is_int && attr_detail::same_bits(a.value, b.value);
}

}  // namespace graft
