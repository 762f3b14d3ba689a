// The text of a symbolic int (a `SymInt` or `SymScalar` attribute that holds a string): a
// symbol ("T") or an affine expression of symbols ("2*T", "T-1", "N+2*T-3": a sum of integer
// multiples of symbols plus a constant), as the exporter writes a bound that follows the
// symbols linearly. Parsed here; eval/concretize.h evaluates it once the symbols are bound.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graft {

struct SymbolicInt {
  std::vector<std::pair<std::string, int64_t>> terms;  // (symbol, coefficient), as written
  int64_t constant = 0;
};

/// `text` as a symbolic int: terms `[INT*]SYMBOL` and `INT` joined by `+` and `-` (a leading
/// `-` allowed), with at least one symbol (an identifier other than inf and nan); nullopt for
/// anything else, and for numbers past int64.
std::optional<SymbolicInt> parse_symbolic_int(std::string_view text);

/// The value of `expr` at the symbols' `values`; nullopt if a symbol has none or the value
/// overflows int64.
std::optional<int64_t> evaluate_symbolic_int(const SymbolicInt& expr,
                                             const std::map<std::string, int64_t>& values);

}  // namespace graft
