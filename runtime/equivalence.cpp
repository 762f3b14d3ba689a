// Equivalence checking: both graphs compiled with the direct convolution algorithm (no
// Winograd), so the two differ only by what the rewrite changed and not by oneDNN picking a
// faster, less exact kernel for one of them.
#include "runtime/equivalence.h"

#include <fmt/format.h>

#include <cmath>

#include "runtime/executable.h"

namespace graft::runtime {

using eval::Tensor;

namespace {

uint64_t mix(uint64_t seed, uint64_t trial, uint64_t input) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (1 + trial * 1009 + input);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string index_string(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

/// Compares one output; the first output out of tolerance gives the report its message, with
/// the element that exceeds the tolerance most.
void compare_output(const Tensor& expected, const Tensor& actual, size_t output, int trial,
                    const EquivalenceOptions& options, EquivalenceReport& report) {
  if (expected.shape() != actual.shape()) {
    if (report.equivalent) {
      report.message =
          fmt::format("output {}: expected shape {}, got {}", output,
                      shape_to_string(expected.shape()), shape_to_string(actual.shape()));
    }
    report.equivalent = false;
    report.max_abs_diff = INFINITY;
    return;
  }
  int64_t worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double e = expected.f32()[i];
    double a = actual.f32()[i];
    double diff = std::fabs(a - e);
    // NaN matches NaN and an infinity matches itself, as numpy.allclose(equal_nan=True) has it.
    if (std::isnan(e) || std::isnan(a)) diff = std::isnan(e) && std::isnan(a) ? 0 : INFINITY;
    if (std::isinf(e) || std::isinf(a)) diff = e == a ? 0 : INFINITY;
    report.max_abs_diff = std::max(report.max_abs_diff, diff);
    double excess = diff - (options.atol + options.rtol * std::fabs(e));
    if (excess > 0 && (worst < 0 || excess > worst_excess)) {
      worst = i;
      worst_excess = excess;
    }
  }
  if (worst < 0 || !report.equivalent) return;
  report.equivalent = false;
  double e = expected.f32()[worst];
  double a = actual.f32()[worst];
  report.message = fmt::format(
      "output {} at {}: expected {:.6g}, got {:.6g} (|diff| {:.3g} > atol {:g} + rtol {:g} * "
      "|expected|){}",
      output, index_string(worst, expected.shape()), e, a, std::fabs(a - e), options.atol,
      options.rtol, trial > 0 ? fmt::format(", trial {}", trial + 1) : std::string());
}

}  // namespace

std::optional<EquivalenceReport> check_equivalence(const Graph& expected, const Graph& actual,
                                                   const EquivalenceOptions& options,
                                                   DiagnosticEngine& diags,
                                                   const std::string& what) {
  CompileOptions compile_options;
  compile_options.winograd = false;
  compile_options.source_name = what + " before the rewrite";
  std::unique_ptr<Executable> before = compile(expected, compile_options, diags);
  compile_options.source_name = what + " after the rewrite";
  std::unique_ptr<Executable> after = compile(actual, compile_options, diags);
  if (!before || !after) return std::nullopt;
  const auto& in_before = before->inputs();
  const auto& in_after = after->inputs();
  bool same_inputs = in_before.size() == in_after.size();
  for (size_t i = 0; same_inputs && i < in_before.size(); ++i) {
    same_inputs =
        in_before[i].shape == in_after[i].shape && in_before[i].dtype == in_after[i].dtype;
  }
  if (!same_inputs || before->outputs().size() != after->outputs().size()) {
    diags.error(DiagLocation::in_file(what),
                fmt::format("the rewrite changed the graph's signature: {} inputs and {} outputs "
                            "before, {} and {} after",
                            in_before.size(), before->outputs().size(), in_after.size(),
                            after->outputs().size()));
    return std::nullopt;
  }
  EquivalenceReport report;
  for (int trial = 0; trial < std::max(1, options.trials); ++trial) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < in_before.size(); ++i) {
      inputs.push_back(
          Tensor::random_of(in_before[i].dtype, in_before[i].shape, mix(options.seed, trial, i)));
    }
    std::optional<std::vector<Tensor>> want = before->run(inputs, diags);
    std::optional<std::vector<Tensor>> got = want ? after->run(inputs, diags) : std::nullopt;
    if (!got) return std::nullopt;
    for (size_t o = 0; o < want->size(); ++o) {
      compare_output((*want)[o], (*got)[o], o, trial, options, report);
    }
  }
  return report;
}

}  // namespace graft::runtime
