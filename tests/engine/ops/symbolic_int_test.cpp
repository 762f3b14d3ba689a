// Symbolic ints ("T", "2*T-1"): what parses as a sum of multiples of symbols and an int, and
// its value once the symbols are bound.
#include "engine/ops/symbolic_int.h"

#include <catch2/catch.hpp>

using graft::parse_symbolic_int;
using graft::SymbolicInt;

namespace {

/// "2*T + -1" style text of a parse, for whole-value comparisons.
std::string text_of(const SymbolicInt& e) {
  std::string out;
  for (const auto& [symbol, coefficient] : e.terms) {
    out += std::to_string(coefficient) + "*" + symbol + " + ";
  }
  return out + std::to_string(e.constant);
}

}  // namespace

TEST_CASE("symbolic ints parse as terms and a constant", "[engine][symint]") {
  auto parsed = [](const char* text) {
    std::optional<SymbolicInt> e = parse_symbolic_int(text);
    return e ? text_of(*e) : std::string("none");
  };
  CHECK(parsed("T") == "1*T + 0");
  CHECK(parsed("T-1") == "1*T + -1");
  CHECK(parsed("2*T") == "2*T + 0");
  CHECK(parsed("-T+5") == "-1*T + 5");
  CHECK(parsed("N+2*T-3-4") == "1*N + 2*T + -7");
  CHECK(parsed("3") == "none");  // a number is no symbolic int
  CHECK(parsed("2T") == "none");
  CHECK(parsed("T*2") == "none");
  CHECK(parsed("T - 1") == "none");
  CHECK(parsed("nan+1") == "none");
  CHECK(parsed("T+99999999999999999999") == "none");
}

TEST_CASE("a symbolic int evaluates at the symbols' values", "[engine][symint]") {
  std::map<std::string, int64_t> values{{"N", 3}, {"T", 7}};
  CHECK(graft::evaluate_symbolic_int(*parse_symbolic_int("N+2*T-3"), values) == 14);
  CHECK(graft::evaluate_symbolic_int(*parse_symbolic_int("-T+5"), values) == -2);
  CHECK_FALSE(graft::evaluate_symbolic_int(*parse_symbolic_int("S-1"), values));
  values["T"] = int64_t{1} << 62;
  CHECK_FALSE(graft::evaluate_symbolic_int(*parse_symbolic_int("4*T"), values));
}
