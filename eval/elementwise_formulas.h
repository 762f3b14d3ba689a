// The element formulas of the float32 elementwise ops, written once for the reference kernels
// (reference.cpp) and the constant folder's fast path (elementwise_fold.cpp), whose results
// must agree byte for byte. Each formula is double arithmetic; callers round to float once.
// with_unary() / with_binary() dispatch on the formula once and hand back the formula as a
// function object, so a caller's loop instantiates per op and its body has no dispatch left.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "engine/ops/op_facts.h"

namespace graft::eval {

/// The formulas are the registry's (engine/ops/op_facts.h): a row names its op's formula.
using ElementOp = Formula;

/// The formulas' attributes. alpha: add's and sub's alpha, clamp's (and hardtanh's) lower
/// bound, leaky_relu's slope, elu's alpha, softplus's beta. beta: clamp's upper bound,
/// softplus's threshold.
struct ElementParams {
  double alpha = 0, beta = 0;
};

/// Unary formula `kOp` at `v`.
template <ElementOp kOp>
inline double apply(double v, [[maybe_unused]] const ElementParams& p) {
  using enum Formula;
  static_assert(!is_binary(kOp));
  if constexpr (kOp == kSqrt) return std::sqrt(v);
  if constexpr (kOp == kRsqrt) return 1 / std::sqrt(v);
  if constexpr (kOp == kExp) return std::exp(v);
  if constexpr (kOp == kLog) return std::log(v);
  if constexpr (kOp == kNeg) return -v;
  if constexpr (kOp == kReciprocal) return 1 / v;
  if constexpr (kOp == kAbs) return std::fabs(v);
  if constexpr (kOp == kErf) return std::erf(v);
  // torch's softplus: the input itself where beta * x > threshold.
  if constexpr (kOp == kSoftplus) {
    return v * p.alpha > p.beta ? v : std::log1p(std::exp(v * p.alpha)) / p.alpha;
  }
  if constexpr (kOp == kRelu) return v < 0 ? 0 : v;  // NaN and -0.0 pass through, as in torch
  if constexpr (kOp == kRelu6) return std::min(std::max(v, 0.0), 6.0);
  if constexpr (kOp == kClamp) return std::min(std::max(v, p.alpha), p.beta);
  if constexpr (kOp == kLeakyRelu) return v > 0 ? v : v * p.alpha;
  if constexpr (kOp == kElu) return v > 0 ? v : p.alpha * (std::exp(v) - 1);
  if constexpr (kOp == kHardswish) return v * std::min(std::max(v + 3, 0.0), 6.0) / 6;
  if constexpr (kOp == kHardsigmoid) return std::min(std::max(v + 3, 0.0), 6.0) / 6;
  if constexpr (kOp == kSilu) return v / (1 + std::exp(-v));
  if constexpr (kOp == kSigmoid) return 1 / (1 + std::exp(-v));
  if constexpr (kOp == kTanh) return std::tanh(v);
  if constexpr (kOp == kGelu) return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  if constexpr (kOp == kGeluTanh) {
    const double c = std::sqrt(2.0 / M_PI);
    return 0.5 * v * (1 + std::tanh(c * (v + 0.044715 * v * v * v)));
  }
}

/// Binary formula `kOp` at (`x`, `y`).
template <ElementOp kOp>
inline double apply(double x, double y, [[maybe_unused]] const ElementParams& p) {
  using enum Formula;
  static_assert(is_binary(kOp));
  if constexpr (kOp == kAdd) return x + p.alpha * y;
  if constexpr (kOp == kSub) return x - p.alpha * y;
  if constexpr (kOp == kMul) return x * y;
  if constexpr (kOp == kDiv) return x / y;
  if constexpr (kOp == kDivTrunc) return std::trunc(x / y);
  if constexpr (kOp == kDivFloor) return std::floor(x / y);
  // torch computes x ** 0.5 and x ** -0.5 as sqrt and rsqrt (NaN at -inf, -0 and -inf at -0,
  // where C's pow gives +inf, +0 and +inf).
  if constexpr (kOp == kPow) {
    if (y == 0.5) return std::sqrt(x);
    if (y == -0.5) return 1 / std::sqrt(x);
    return std::pow(x, y);
  }
  // torch.maximum/minimum propagate NaN from either side (std::fmax would drop it).
  if constexpr (kOp == kMaximum) return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
  if constexpr (kOp == kMinimum) return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
}

namespace detail {

/// Calls `run(fn)` for the one op of [kFirst, kFirst + sizeof...(I)) that is `op`, with `fn`
/// formula apply<op> bound to `p`; runs nothing if `op` is outside the range. The compares
/// run once per call, not per element.
template <ElementOp kFirst, typename Run, size_t... I>
void with_formula(ElementOp op, const ElementParams& p, Run& run, std::index_sequence<I...>) {
  constexpr auto first = static_cast<size_t>(kFirst);
  auto call = [&](auto k) {
    constexpr ElementOp kOp = decltype(k)::value;
    if constexpr (is_binary(kOp)) {
      run([p](double x, double y) { return apply<kOp>(x, y, p); });
    } else {
      run([p](double v) { return apply<kOp>(v, p); });
    }
  };
  (void)((static_cast<size_t>(op) == first + I &&
          (call(std::integral_constant<ElementOp, static_cast<ElementOp>(first + I)>{}), true)) ||
         ...);
}

}  // namespace detail

/// Calls `run(fn)` with `fn(double) -> double` unary formula `op` (with `p` bound), one
/// instantiation of `run` per op. Runs nothing for a binary op.
template <typename Run>
void with_unary(ElementOp op, const ElementParams& p, Run&& run) {
  constexpr auto first = static_cast<size_t>(ElementOp::kSqrt);
  constexpr auto last = static_cast<size_t>(ElementOp::kGeluTanh);
  detail::with_formula<ElementOp::kSqrt>(op, p, run, std::make_index_sequence<last + 1 - first>{});
}

/// Calls `run(fn)` with `fn(double, double) -> double` binary formula `op` (with `p` bound),
/// one instantiation of `run` per op. Runs nothing for a unary op.
template <typename Run>
void with_binary(ElementOp op, const ElementParams& p, Run&& run) {
  constexpr auto count = static_cast<size_t>(ElementOp::kMinimum) + 1;
  detail::with_formula<ElementOp::kAdd>(op, p, run, std::make_index_sequence<count>{});
}

}  // namespace graft::eval
