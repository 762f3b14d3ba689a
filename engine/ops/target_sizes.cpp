// Reading reshape's and unflatten's sizes, and cancelling symbols between the input's dims
// and the sizes (see target_sizes.h).
#include "engine/ops/target_sizes.h"

#include <algorithm>

namespace graft::shape_fns {
namespace {

/// The dims of `from` that are not among `symbols` (each symbol takes out one dim), or
/// nullopt if a symbol of `symbols` is not in `from`.
std::optional<Shape> without_symbols(Shape from, const Shape& symbols) {
  for (Dim s : symbols) {
    auto it = std::find(from.begin(), from.end(), s);
    if (it == from.end()) return std::nullopt;
    from.erase(it);
  }
  return from;
}

}  // namespace

TargetSizes read_target_sizes(const SymInts& items) {
  TargetSizes t;
  t.text = attr_to_string(AttrValue{items});
  for (size_t i = 0; i < items.size(); ++i) {
    if (const auto* symbol = std::get_if<std::string>(&items[i])) {
      t.dims.push_back(dim_symbol(*symbol));
      t.symbols.push_back(t.dims.back());
      continue;
    }
    const int64_t size = std::get<int64_t>(items[i]);
    t.dims.push_back(size);
    if (size == -1 && t.inferred < 0) {
      t.inferred = static_cast<int>(i);
    } else if (size == -1) {
      if (t.second_inferred < 0) t.second_inferred = static_cast<int>(i);
    } else if (size < 0) {
      if (t.negative < 0) t.negative = static_cast<int>(i);
    } else {
      t.overflow |= __builtin_mul_overflow(t.known, size, &t.known);
    }
  }
  return t;
}

Dim inferred_symbolic_size(const Shape& from, const TargetSizes& target) {
  std::optional<Shape> left = without_symbols(from, target.symbols);
  if (!left || target.known == 0) return unknown_dim();
  Shape concrete;
  Shape symbolic;
  for (Dim d : *left) (is_concrete(d) ? concrete : symbolic).push_back(d);
  std::optional<int64_t> count = element_count(concrete);
  if (!count) return unknown_dim();
  if (symbolic.empty()) return *count % target.known == 0 ? *count / target.known : unknown_dim();
  const bool one_symbol = symbolic.size() == 1 && symbolic[0] != unknown_dim();
  return one_symbol && *count == target.known ? symbolic[0] : unknown_dim();
}

bool certainly_different_count(const Shape& from, const TargetSizes& target) {
  if (target.inferred >= 0 || target.overflow) return false;
  std::optional<Shape> left = without_symbols(from, target.symbols);
  if (!left) return false;
  std::optional<int64_t> count = element_count(*left);  // nullopt: a symbol left over
  return count && *count != target.known;
}

}  // namespace graft::shape_fns
