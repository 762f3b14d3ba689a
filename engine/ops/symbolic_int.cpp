// Parsing and evaluating symbolic ints ("T", "2*T-1"; see symbolic_int.h).
#include "engine/ops/symbolic_int.h"

#include <cctype>
#include <charconv>

#include "engine/ops/op_schema.h"

namespace graft {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Reads an unsigned int at `*pos`; nullopt when there is none or it passes int64.
std::optional<int64_t> read_int(std::string_view text, size_t* pos) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data() + *pos, text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() + *pos) return std::nullopt;
  *pos = static_cast<size_t>(end - text.data());
  return value;
}

std::optional<std::string> read_name(std::string_view text, size_t* pos) {
  size_t end = *pos;
  while (end < text.size() && is_name_char(text[end])) ++end;
  std::string name(text.substr(*pos, end - *pos));
  if (!is_symbol_name(name)) return std::nullopt;
  *pos = end;
  return name;
}

}  // namespace

std::optional<SymbolicInt> parse_symbolic_int(std::string_view text) {
  SymbolicInt expr;
  size_t pos = 0;
  bool negative = !text.empty() && text[0] == '-';
  if (negative) ++pos;
  while (true) {
    if (pos >= text.size() || text[pos] == '-' || text[pos] == '+') return std::nullopt;
    std::optional<int64_t> number;
    if (std::isdigit(static_cast<unsigned char>(text[pos]))) {
      number = read_int(text, &pos);
      if (!number) return std::nullopt;
    }
    std::optional<std::string> symbol;
    if (!number || (pos < text.size() && text[pos] == '*')) {
      if (number) ++pos;  // the '*'
      symbol = read_name(text, &pos);
      if (!symbol) return std::nullopt;
    }
    const int64_t value = number.value_or(1);
    const int64_t signed_value = negative ? -value : value;
    if (symbol) {
      expr.terms.emplace_back(std::move(*symbol), signed_value);
    } else if (__builtin_add_overflow(expr.constant, signed_value, &expr.constant)) {
      return std::nullopt;
    }
    if (pos == text.size()) break;
    if (text[pos] != '+' && text[pos] != '-') return std::nullopt;
    negative = text[pos] == '-';
    ++pos;
  }
  if (expr.terms.empty()) return std::nullopt;
  return expr;
}

std::optional<int64_t> evaluate_symbolic_int(const SymbolicInt& expr,
                                             const std::map<std::string, int64_t>& values) {
  int64_t sum = expr.constant;
  for (const auto& [symbol, coefficient] : expr.terms) {
    auto it = values.find(symbol);
    int64_t term = 0;
    if (it == values.end() || __builtin_mul_overflow(coefficient, it->second, &term) ||
        __builtin_add_overflow(sum, term, &sum)) {
      return std::nullopt;
    }
  }
  return sum;
}

}  // namespace graft
