// Equivalence checking: both graphs compiled with the direct convolution algorithm (no
// Winograd), so the two differ only by what the rewrite changed and not by oneDNN picking a
// faster, less exact kernel for one of them. The special-value trials run on the reference
// interpreter, which defines what each op gives for zeros, infinities and NaN.
#include "runtime/equivalence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "eval/reference.h"
#include "runtime/executable.h"
#include "runtime/special_inputs.h"

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

/// |a - e|, where NaN matches NaN and an infinity matches itself (as numpy.allclose with
/// equal_nan=True has it) and either against anything else differs infinitely.
double element_diff(double e, double a) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a) ? 0 : INFINITY;
  if (std::isinf(e) || std::isinf(a)) return e == a ? 0 : INFINITY;
  return std::fabs(a - e);
}

/// A value for a message: a NaN's sign bit means nothing in PyTorch, so it is not shown.
std::string value_text(double v) { return std::isnan(v) ? "nan" : fmt::format("{:.6g}", v); }

/// One trial's inputs: uniform in [-scale, scale), or special values.
struct TrialInputs {
  float scale = 1;
  int special = -1;  // -1: uniform; 0: finite special values; 1: with ±inf and NaN

  /// Past [-1, 1), absolute errors grow with the values: the trial's atol is relative to the
  /// output's largest finite magnitude.
  bool relative_atol() const { return scale > 1 || special >= 0; }
  std::string describe() const {
    if (special == 0) return ", inputs with special values";
    if (special == 1) return ", inputs with special values, ±inf and NaN";
    return scale != 1 ? fmt::format(", inputs in [-{:g}, {:g})", scale, scale) : std::string();
  }
};

/// Compares one output; the first output out of tolerance gives the report its message, with
/// the element that exceeds the tolerance most.
void compare_output(const Tensor& expected, const Tensor& actual, size_t output, int trial,
                    const TrialInputs& inputs, const EquivalenceOptions& options,
                    EquivalenceReport& report) {
  if (expected.shape() != actual.shape() || expected.dtype() != actual.dtype()) {
    if (report.equivalent) {
      report.message = fmt::format("output {}: expected {}{}, got {}{}", output,
                                   dtype_name(expected.dtype()), shape_to_string(expected.shape()),
                                   dtype_name(actual.dtype()), shape_to_string(actual.shape()));
    }
    report.equivalent = false;
    report.max_abs_diff = INFINITY;
    return;
  }
  double atol = options.atol;
  if (inputs.relative_atol()) {
    double largest = 1;
    for (int64_t i = 0; i < expected.numel(); ++i) {
      double e = std::fabs(expected.value_at(i));
      if (std::isfinite(e)) largest = std::max(largest, e);
    }
    atol *= largest;
  }
  int64_t worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    // Any dtype: value_at reads int64 and bool exactly (as doubles).
    double e = expected.value_at(i);
    double a = actual.value_at(i);
    double diff = element_diff(e, a);
    report.max_abs_diff = std::max(report.max_abs_diff, diff);
    // A non-finite expected value allows no slack: its match is exact (above), and
    // rtol * |NaN| would make every comparison with it false, so that anything passed.
    double excess = diff - (atol + options.rtol * (std::isfinite(e) ? std::fabs(e) : 0.0));
    if (excess > 0 && (worst < 0 || excess > worst_excess)) {
      worst = i;
      worst_excess = excess;
    }
  }
  if (worst < 0 || !report.equivalent) return;
  report.equivalent = false;
  double e = expected.value_at(worst);
  double a = actual.value_at(worst);
  report.message = fmt::format(
      "output {} at {}: expected {}, got {} (|diff| {:.3g} > atol {:g} + rtol {:g} * "
      "|expected|){}{}",
      output, index_string(worst, expected.shape()), value_text(e), value_text(a),
      element_diff(e, a), atol,
      options.rtol, trial > 0 ? fmt::format(", trial {}", trial + 1) : std::string(),
      inputs.describe());
}

/// The graph's inputs as the runtime would list them, for a graph run on the reference.
std::vector<TensorInfo> signature_inputs(const Graph& graph) {
  std::vector<TensorInfo> out;
  for (const Node* p : graph.placeholders()) {
    TensorType type = p->type() ? *p->type() : TensorType{};
    out.push_back({p->name(), type.dtype, type.shape});
  }
  return out;
}

}  // namespace

std::optional<EquivalenceReport> check_equivalence(const Graph& expected, const Graph& actual,
                                                   const EquivalenceOptions& options,
                                                   DiagnosticEngine& diags,
                                                   const std::string& what) {
  std::unique_ptr<Executable> before, after;
  if (!options.on_reference) {
    CompileOptions compile_options;
    compile_options.winograd = false;
    compile_options.source_name = what + " before the rewrite";
    before = compile(expected, compile_options, diags);
    compile_options.source_name = what + " after the rewrite";
    after = compile(actual, compile_options, diags);
    if (!before || !after) return std::nullopt;
  }
  const std::vector<TensorInfo> in_before = before ? before->inputs() : signature_inputs(expected);
  const std::vector<TensorInfo> in_after = after ? after->inputs() : signature_inputs(actual);
  const size_t out_before = expected.output() ? expected.output()->inputs().size() : 0;
  const size_t out_after = actual.output() ? actual.output()->inputs().size() : 0;
  bool same_inputs = in_before.size() == in_after.size();
  for (size_t i = 0; same_inputs && i < in_before.size(); ++i) {
    same_inputs =
        in_before[i].shape == in_after[i].shape && in_before[i].dtype == in_after[i].dtype;
  }
  if (!same_inputs || out_before != out_after) {
    diags.error(DiagLocation::in_file(what),
                fmt::format("the rewrite changed the graph's signature: {} inputs and {} outputs "
                            "before, {} and {} after",
                            in_before.size(), out_before, in_after.size(), out_after));
    return std::nullopt;
  }
  for (const TensorInfo& in : in_before) {
    if (!is_concrete(in.shape)) {
      diags.error(DiagLocation::in_file(what), fmt::format("input '{}' has the symbolic shape {}",
                                                           in.name, shape_to_string(in.shape)));
      return std::nullopt;
    }
  }
  EquivalenceReport report;
  const int uniform_trials = std::max(1, options.trials);
  const int special_trials = std::clamp(options.special_trials, 0, 2);
  for (int trial = 0; trial < uniform_trials + special_trials; ++trial) {
    TrialInputs kind;
    if (trial >= uniform_trials) {
      kind.special = trial - uniform_trials;
    } else if (!options.input_scales.empty()) {
      kind.scale = options.input_scales[static_cast<size_t>(trial) % options.input_scales.size()];
    }
    const std::vector<float> pool =
        kind.special >= 0 ? special_value_pool(options.special_values, kind.special == 1)
                          : std::vector<float>{};
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < in_before.size(); ++i) {
      const uint64_t seed = mix(options.seed, trial, i);
      const TensorInfo& in = in_before[i];
      if (in.dtype != DType::kFloat32) {
        inputs.push_back(Tensor::random_of(in.dtype, in.shape, seed));
      } else if (kind.special >= 0) {
        inputs.push_back(special_tensor(in.shape, seed, pool));
      } else {
        inputs.push_back(Tensor::random(in.shape, seed, -kind.scale, kind.scale));
      }
    }
    std::optional<std::vector<Tensor>> want, got;
    if (kind.special >= 0 || options.on_reference) {
      // The reference kernels give zeros, infinities and NaN the results PyTorch gives; oneDNN's
      // need not (its standalone relu maps NaN to 0, a convolution's fused relu keeps it), and
      // such a difference is no fault of the rewrite.
      want = eval::run_reference(expected, inputs, diags);
      got = want ? eval::run_reference(actual, inputs, diags) : std::nullopt;
    } else {
      want = before->run(inputs, diags);
      got = want ? after->run(inputs, diags) : std::nullopt;
    }
    if (!got) return std::nullopt;
    for (size_t o = 0; o < want->size(); ++o) {
      compare_output((*want)[o], (*got)[o], o, trial, kind, options, report);
    }
  }
  return report;
}

}  // namespace graft::runtime
