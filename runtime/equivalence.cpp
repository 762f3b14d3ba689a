// Equivalence checking: both graphs compiled with the direct convolution algorithm (no
// Winograd), so the two differ only by what the rewrite changed and not by oneDNN picking a
// faster, less exact kernel for one of them. The special-value trials run on the reference
// interpreter, which defines what each op gives for zeros, infinities and NaN. A failing
// trial's inputs are simplified by rerunning the same two executables (or the reference), so
// shrinking costs no compilation.
#include "runtime/equivalence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/ir/half.h"
#include "eval/reference.h"
#include "runtime/executable.h"
#include "runtime/special_inputs.h"

namespace graft::runtime {

using eval::Tensor;

namespace {

/// The largest finite magnitude a float16 or bfloat16 input of a trial takes.
constexpr float kHalfInputBound = 8;

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
/// `trial_text` ends the message (", trial 2, inputs in [-8, 8)").
/// `slack`, when not empty, widens each element's tolerance by twice its value.
void compare_output(const Tensor& expected, const Tensor& actual, size_t output,
                    const TrialInputs& inputs, const std::string& trial_text,
                    const EquivalenceOptions& options, const std::vector<double>& slack,
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
  // A half output is compared at its own precision: each op of either graph rounds to it, so
  // a correct rewrite differs by a few units in its last place.
  double atol = options.atol;
  double rtol = options.rtol;
  if (is_half(expected.dtype())) {
    rtol = std::max(rtol, 4 * dtype_epsilon(expected.dtype()));
    atol = std::max(atol, 4 * dtype_epsilon(expected.dtype()));
  }
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
    // In half, a value that underflows to 0 before meeting an infinity gives NaN (0 · inf)
    // where a fused op that rounds once gives the infinity: both are non-finite.
    if (is_half(expected.dtype()) && !std::isfinite(e) && !std::isfinite(a) &&
        (std::isnan(e) || std::isnan(a))) {
      diff = 0;
    }
    report.max_abs_diff = std::max(report.max_abs_diff, diff);
    // A non-finite expected value allows no slack: its match is exact (above), and
    // rtol * |NaN| would make every comparison with it false, so that anything passed.
    double excess = diff - (atol + rtol * (std::isfinite(e) ? std::fabs(e) : 0.0));
    if (!slack.empty()) excess -= 2 * slack[static_cast<size_t>(i)];
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
      "|expected|){}",
      output, index_string(worst, expected.shape()), value_text(e), value_text(a),
      element_diff(e, a), atol, rtol, trial_text);
}

/// Compares every output of one trial; `slack` is TrialRunner::rounding_slack's (or empty).
void compare_outputs(const std::vector<Tensor>& want, const std::vector<Tensor>& got,
                     const TrialInputs& inputs, const std::string& trial_text,
                     const EquivalenceOptions& options,
                     const std::vector<std::vector<double>>& slack, EquivalenceReport& report) {
  static const std::vector<double> kNone;
  for (size_t o = 0; o < want.size(); ++o) {
    compare_output(want[o], got[o], o, inputs, trial_text, options,
                   o < slack.size() ? slack[o] : kNone, report);
  }
}

/// Runs the two graphs of a check on given inputs: compiled, or on the reference interpreter.
class TrialRunner {
 public:
  TrialRunner(const Graph& expected, const Graph& actual, Executable* before, Executable* after)
      : expected_(expected), actual_(actual), before_(before), after_(after) {}

  /// Fills `want` and `got`; false after reporting to `diags`.
  bool run(const std::vector<Tensor>& inputs, bool on_reference, DiagnosticEngine& diags,
           std::vector<Tensor>& want, std::vector<Tensor>& got) {
    std::optional<std::vector<Tensor>> w, g;
    if (on_reference) {
      w = eval::run_reference(expected_, inputs, diags);
      g = w ? eval::run_reference(actual_, inputs, diags) : std::nullopt;
    } else {
      w = before_->run(inputs, diags);
      g = w ? after_->run(inputs, diags) : std::nullopt;
    }
    if (!g) return false;
    want = std::move(*w);
    got = std::move(*g);
    return true;
  }

  /// Per element of each float16 or bfloat16 output of the graph before the rewrite, how far it
  /// moves when every half result is perturbed by two units of its precision (two seeds): how
  /// much rounding the graph amplifies there (infinite where a NaN or infinity comes or goes).
  /// Empty when no output is half. A rewrite that rounds elsewhere (a fused op that rounds once)
  /// may move an element that far without being wrong.
  std::vector<std::vector<double>> rounding_slack(const std::vector<Tensor>& inputs,
                                                  const std::vector<Tensor>& want) {
    bool half = false;
    for (const Tensor& t : want) half = half || is_half(t.dtype());
    if (!half) return {};
    std::vector<std::vector<double>> slack(want.size());
    for (size_t o = 0; o < want.size(); ++o) slack[o].assign(static_cast<size_t>(want[o].numel()), 0.0);
    for (uint64_t seed : {1, 2}) {
      eval::RoundingNoise noise;
      noise.half_units = 2;
      noise.seed = seed;
      DiagnosticEngine scratch;
      std::optional<std::vector<Tensor>> noisy = eval::run_reference(expected_, inputs, scratch, noise);
      for (size_t o = 0; o < want.size(); ++o) {
        if (!is_half(want[o].dtype())) continue;
        for (int64_t i = 0; i < want[o].numel(); ++i) {
          const double moved = noisy && o < noisy->size()
                                   ? element_diff(want[o].value_at(i), (*noisy)[o].value_at(i))
                                   : INFINITY;
          double& s = slack[o][static_cast<size_t>(i)];
          s = std::max(s, moved);
        }
      }
    }
    return slack;
  }

 private:
  const Graph& expected_;
  const Graph& actual_;
  Executable* before_;
  Executable* after_;
};

/// The values simpler than `v` to try in its place, simplest first: 0, 1, -1, then `v` with
/// 1, 2 and 3 significant digits; none from `v` itself on.
std::vector<double> simpler_values(double v, DType dtype) {
  std::vector<double> tries = {0.0, 1.0, -1.0};
  if (std::isfinite(v)) {
    for (int digits : {1, 2, 3}) tries.push_back(std::stod(fmt::format("{:.{}g}", v, digits)));
  }
  std::vector<double> out;
  for (double c : tries) {
    if (dtype == DType::kFloat32) c = static_cast<float>(c);
    if (is_half(dtype)) c = half_bits_to_float(dtype, float_to_half_bits(dtype, static_cast<float>(c)));
    if (dtype == DType::kInt64) c = std::round(c);
    if (c == v && std::signbit(c) == std::signbit(v)) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

void set_value(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DType::kFloat32) t.f32()[i] = static_cast<float>(v);
  if (t.dtype() == DType::kInt64) t.i64()[i] = static_cast<int64_t>(v);
  if (is_half(t.dtype())) {
    static_cast<uint16_t*>(t.data())[i] = float_to_half_bits(t.dtype(), static_cast<float>(v));
  }
}

/// Simplifies a counterexample's inputs while the graphs still differ on them: first whole
/// blocks of each input set to 0, then each element replaced by a simpler value. Every
/// attempt costs one run of both graphs, and at most `budget` are made.
class Shrinker {
 public:
  Shrinker(TrialRunner& runner, bool on_reference, const TrialInputs& kind,
           const EquivalenceOptions& options, Counterexample& cx)
      : runner_(runner), on_reference_(on_reference), kind_(kind), options_(options), cx_(cx),
        budget_(options.shrink_runs) {}

  void run() {
    for (size_t t = 0; t < cx_.inputs.size(); ++t) zero_blocks(t);
    for (size_t t = 0; t < cx_.inputs.size(); ++t) simplify_elements(t);
  }

 private:
  static bool shrinkable(const Tensor& t) {
    return t.dtype() == DType::kFloat32 || t.dtype() == DType::kInt64 || is_half(t.dtype());
  }

  /// Whether the graphs still differ with input `t` replaced by `candidate`; if so, keeps it.
  bool try_input(size_t t, Tensor candidate) {
    if (budget_ <= 0) return false;
    --budget_;
    std::vector<Tensor> inputs = cx_.inputs;
    inputs[t] = std::move(candidate);
    std::vector<Tensor> want, got;
    DiagnosticEngine scratch;  // an input the graphs cannot run on is simply not kept
    if (!runner_.run(inputs, on_reference_, scratch, want, got)) return false;
    EquivalenceReport report;
    compare_outputs(want, got, kind_, "", options_, runner_.rounding_slack(inputs, want), report);
    if (report.equivalent) return false;
    cx_.inputs = std::move(inputs);
    cx_.expected = std::move(want);
    cx_.actual = std::move(got);
    cx_.message = std::move(report.message);
    cx_.shrunk = true;
    return true;
  }

  /// Blocks of a half, a quarter and an eighth of the input, set to 0 at once.
  void zero_blocks(size_t t) {
    const int64_t n = cx_.inputs[t].numel();
    if (!shrinkable(cx_.inputs[t]) || n < 2) return;
    for (int64_t parts = 1; parts <= 8 && parts <= n; parts *= 2) {
      const int64_t block = (n + parts - 1) / parts;
      for (int64_t begin = 0; begin < n && budget_ > 0; begin += block) {
        const int64_t end = std::min(n, begin + block);
        const Tensor& current = cx_.inputs[t];
        bool zero = true;
        for (int64_t i = begin; zero && i < end; ++i) zero = current.value_at(i) == 0;
        if (zero) continue;
        Tensor candidate = current.clone();
        for (int64_t i = begin; i < end; ++i) set_value(candidate, i, 0.0);
        try_input(t, std::move(candidate));
      }
    }
  }

  void simplify_elements(size_t t) {
    if (!shrinkable(cx_.inputs[t])) return;
    for (int64_t i = 0; i < cx_.inputs[t].numel() && budget_ > 0; ++i) {
      for (double v : simpler_values(cx_.inputs[t].value_at(i), cx_.inputs[t].dtype())) {
        Tensor candidate = cx_.inputs[t].clone();
        set_value(candidate, i, v);
        if (try_input(t, std::move(candidate))) break;
      }
      toward_zero(t, i);
    }
  }

  /// An integer past ±1 that still fails bisected toward the smallest magnitude that does
  /// (relu6's counterexample 20 becomes 7), assuming the failure persists further out.
  void toward_zero(size_t t, int64_t i) {
    const double v = cx_.inputs[t].value_at(i);
    if (!std::isfinite(v) || std::fabs(v) <= 1 || v != std::round(v)) return;
    double passing = 1, failing = std::fabs(v);
    while (failing - passing > 1 && budget_ > 0) {
      const double mid = std::floor((passing + failing) / 2);
      Tensor candidate = cx_.inputs[t].clone();
      set_value(candidate, i, std::copysign(mid, v));
      if (try_input(t, std::move(candidate))) {
        failing = mid;
      } else {
        passing = mid;
      }
    }
  }

  TrialRunner& runner_;
  bool on_reference_;
  TrialInputs kind_;
  const EquivalenceOptions& options_;
  Counterexample& cx_;
  int budget_;
};

/// One element for a counterexample: the shortest text that reads back as the same value.
std::string element_text(const Tensor& t, int64_t i) {
  const double v = t.value_at(i);
  if (t.dtype() == DType::kBool) return v != 0 ? "true" : "false";
  if (std::isnan(v)) return "nan";
  if (t.dtype() == DType::kFloat32 || is_half(t.dtype())) return fmt::format("{}", static_cast<float>(v));
  return fmt::format("{}", v);
}

/// The elements of `t` from `*next` on as nested lists, dims `dim` on.
void append_nested(const Tensor& t, size_t dim, int64_t* next, std::string& out) {
  if (dim == t.shape().size()) {
    out += element_text(t, (*next)++);
    return;
  }
  out += "[";
  for (int64_t k = 0; k < t.shape()[dim]; ++k) {
    if (k > 0) out += ", ";
    append_nested(t, dim + 1, next, out);
  }
  out += "]";
}

/// `t` in full when it has at most `full_elements` elements, else its shape and its
/// elements other than 0 (the first 8).
std::string tensor_text(const Tensor& t, int64_t full_elements) {
  if (t.numel() <= full_elements) {
    std::string out;
    int64_t next = 0;
    append_nested(t, 0, &next, out);
    return out;
  }
  std::vector<std::string> others;
  int64_t count = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.value_at(i) == 0) continue;
    if (++count <= 8) others.push_back(index_string(i, t.shape()) + " " + element_text(t, i));
  }
  std::string out = dtype_name(t.dtype()) + shape_to_string(t.shape());
  if (count == 0) return out + " of zeros";
  out += fmt::format(", 0 but at {}", fmt::join(others, ", "));
  if (count > 8) out += fmt::format(" and {} more", count - 8);
  return out;
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
  TrialRunner runner(expected, actual, before.get(), after.get());
  TrialInputs failing_kind;
  bool failing_on_reference = false;
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
    // Half inputs stay small, where a half graph's intermediates do not overflow (65504 for
    // float16): past that, a fused op that rounds once differs from ops that each round, through
    // no fault of the rule. The float32 variants of a rule cover large magnitudes.
    std::vector<float> half_pool;
    for (float v : pool) {
      if (!std::isfinite(v) || std::fabs(v) <= kHalfInputBound) half_pool.push_back(v);
    }
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < in_before.size(); ++i) {
      const uint64_t seed = mix(options.seed, trial, i);
      const TensorInfo& in = in_before[i];
      if (in.dtype != DType::kFloat32 && !is_half(in.dtype)) {
        inputs.push_back(Tensor::random_of(in.dtype, in.shape, seed));
      } else if (kind.special >= 0) {
        const bool half = is_half(in.dtype);
        inputs.push_back(eval::convert_float(special_tensor(in.shape, seed, half ? half_pool : pool), in.dtype));
      } else {
        const float scale = is_half(in.dtype) ? std::min(kind.scale, kHalfInputBound) : kind.scale;
        inputs.push_back(eval::convert_float(Tensor::random(in.shape, seed, -scale, scale), in.dtype));
      }
    }
    // The reference kernels give zeros, infinities and NaN the results PyTorch gives; oneDNN's
    // need not (its standalone relu maps NaN to 0, a convolution's fused relu keeps it), and
    // such a difference is no fault of the rewrite.
    const bool reference = kind.special >= 0 || options.on_reference;
    std::vector<Tensor> want, got;
    if (!runner.run(inputs, reference, diags, want, got)) return std::nullopt;
    const std::string trial_text =
        (trial > 0 ? fmt::format(", trial {}", trial + 1) : std::string()) + kind.describe();
    compare_outputs(want, got, kind, trial_text, options, runner.rounding_slack(inputs, want), report);
    if (!report.equivalent && !report.counterexample) {
      Counterexample cx;
      for (const TensorInfo& in : in_before) cx.input_names.push_back(in.name);
      cx.inputs = std::move(inputs);
      cx.expected = std::move(want);
      cx.actual = std::move(got);
      cx.message = report.message;
      report.counterexample = std::move(cx);
      failing_kind = kind;
      failing_on_reference = reference;
    }
  }
  if (report.counterexample && options.shrink_runs > 0) {
    Shrinker(runner, failing_on_reference, failing_kind, options, *report.counterexample).run();
  }
  return report;
}

std::string format_counterexample(const Counterexample& counterexample, int64_t full_elements) {
  const Counterexample& cx = counterexample;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < cx.inputs.size(); ++i) {
    const std::string name = i < cx.input_names.size() ? cx.input_names[i] : fmt::format("input {}", i);
    inputs.push_back(name + " = " + tensor_text(cx.inputs[i], full_elements));
  }
  std::string out = fmt::format("inputs: {}\n", fmt::join(inputs, ", "));
  for (size_t o = 0; o < cx.expected.size() && o < cx.actual.size(); ++o) {
    const std::string which = cx.expected.size() == 1 ? "" : fmt::format(" output {}", o);
    out += fmt::format("expected{}: {}\n", which, tensor_text(cx.expected[o], full_elements));
    out += fmt::format("got{}: {}\n", which, tensor_text(cx.actual[o], full_elements));
  }
  return out;
}

}  // namespace graft::runtime
