// fuzz_compile: the runtime's compile step (runtime/executable.h: concrete shapes, kernel
// choice, layouts and reorders, in-place steps, the memory plan), then one run of small graphs.
//
// Inputs: one that starts with '{' is model.json text, loaded as fuzz_model_json loads it
// (weights in a scratch directory holding tiny_cnn's) and compiled as `rewrite run MODEL`
// compiles it: the CLI's own input binding (tools/rewrite/run_util.h, symbolic leading dims
// as batch 1) and its default options. Any other input is a graph recipe
// (fuzz/graph_recipe.h) after one byte that picks the compile options (blocked layouts,
// in-place steps, memory reuse, Winograd) and the size of the batch symbol N (1 to 4), so
// every combination of options meets every graph the recipes build: f32 mostly, also f64,
// f16 and int64 that the runtime must refuse cleanly.
//
// Checks: compile() either gives an executable or reports an error; an executable's memory
// plan is valid (check_memory_plan: no two live buffers share a byte); a graph whose tensors
// take at most kRunBytes runs once on random inputs, and where the reference interpreter
// (eval/reference.h) computes it too, the outputs agree within the tolerance of the
// runtime's own tests. Values beyond 2^127 count as overflowed; not compared are outputs the
// reference makes NaN and those of graphs so ill-conditioned that the reference itself moves
// beyond the tolerance when rounding is perturbed by a few ulps. Graphs whose concrete
// tensors take more than kCompileBytes in all are skipped: they are valid input the runtime
// would allocate, not a finding.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/graph_printer.h"
#include "engine/io/model_json.h"
#include "eval/reference.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/numeric_oracle.h"
#include "fuzz/graph_recipe.h"
#include "runtime/executable.h"
#include "tools/rewrite/run_util.h"

namespace {

using graft::DiagnosticEngine;
using graft::Graph;
using graft::Input;
using graft::Node;
using graft::fuzz::disagreement;
using graft::fuzz::fail;
using graft::fuzz::has_nan;
using graft::fuzz::ill_conditioned;
using graft::fuzz::normalizes_overflowing_values;
namespace eval = graft::eval;
namespace runtime = graft::runtime;

constexpr int64_t kCompileBytes = int64_t{64} << 20;
constexpr int64_t kRunBytes = int64_t{1} << 20;

/// Bytes of every node's concrete type in `graph` compiled with `options`; -1 when the shapes
/// cannot be made concrete (compile() must then report why).
int64_t tensor_bytes(const Graph& graph, const runtime::CompileOptions& options) {
  DiagnosticEngine ignored;
  std::unique_ptr<Graph> concrete =
      eval::concretize_graph(graph, options.shapes, "fuzz", ignored);
  if (!concrete) return -1;
  int64_t total = 0;
  for (const graft::Node* n : concrete->nodes()) {
    if (!n->type()) continue;
    std::optional<int64_t> count = graft::element_count(n->type()->shape);
    if (!count) return -1;
    // Stopping past kCompileBytes keeps the products and the sum far from overflowing.
    if (*count > kCompileBytes) return *count;
    total += *count * static_cast<int64_t>(graft::dtype_size(n->type()->dtype));
    if (total > kCompileBytes) return total;
  }
  return total;
}

/// Compares the executable's outputs with the reference interpreter's on the same inputs.
void check_against_reference(const Graph& graph, const std::vector<eval::Tensor>& inputs,
                             const std::vector<eval::Tensor>& got, const std::string& what) {
  DiagnosticEngine diags;
  std::optional<std::vector<eval::Tensor>> want = eval::run_reference(graph, inputs, diags);
  if (!want) return;  // a case the reference does not implement: nothing to compare with
  if (want->size() != got.size()) fail("compile: output count differs from the reference", what);
  for (size_t i = 0; i < got.size(); ++i) {
    // Where torch (and the reference) propagate a NaN, oneDNN's relu, max, min and clip need
    // not (docs/runtime.md): an output that the reference makes NaN is not compared.
    if (has_nan((*want)[i])) continue;
    std::optional<std::string> differs = disagreement(got[i], (*want)[i]);
    if (differs && !ill_conditioned(graph, inputs, *want) &&
        !normalizes_overflowing_values(graph, inputs)) {
      fail("compile: the executable computes something else than the reference",
           "output " + std::to_string(i) + ", " + *differs +
               "\n  got " + eval::tensor_summary(got[i]) +
               "\n  want " + eval::tensor_summary((*want)[i]) + "\n" + what);
    }
  }
}

void compile_and_run(const Graph& graph, runtime::CompileOptions options, uint64_t seed,
                     const std::string& what) {
  int64_t bytes = tensor_bytes(graph, options);
  if (bytes > kCompileBytes) return;
  DiagnosticEngine diags;
  std::unique_ptr<runtime::Executable> exe = runtime::compile(graph, options, diags);
  if (!exe) {
    if (!diags.has_errors()) fail("compile: rejected without an error", what);
    return;
  }
  if (diags.has_errors()) fail("compile: compiled with errors", what + diags.render());
  std::string plan = runtime::check_memory_plan(exe->buffer_requests(), exe->memory_plan());
  if (!plan.empty()) fail("compile: invalid memory plan", plan + "\n" + exe->dump() + what);
  if (bytes < 0 || bytes > kRunBytes) return;
  std::vector<eval::Tensor> inputs = graft::cli::make_inputs(*exe, {}, seed, graft::cli::index_bounds(graph));
  std::optional<std::vector<eval::Tensor>> outputs = exe->run(inputs, diags);
  if (!outputs) fail("compile: a compiled graph failed to run", what + diags.render());
  check_against_reference(graph, inputs, *outputs, what + exe->dump());
}

/// Model.json text, compiled as `rewrite run MODEL` compiles it.
void from_model_json(const std::string& text) {
  DiagnosticEngine diags;
  std::optional<graft::Model> model = graft::load_model_from_string(
      text, "fuzz.json", graft::fuzz::example_weights_dir(), diags);
  if (!model) return;  // fuzz_model_json checks the loader
  runtime::CompileOptions options;
  options.source_name = "fuzz.json";
  if (!graft::cli::bind_inputs(*model->graph, {}, options, diags)) {
    fail("compile: binding inputs without files failed", text + "\n" + diags.render());
  }
  compile_and_run(*model->graph, options, 0, text);
}

/// Option byte + graph recipe.
void from_recipe(const uint8_t* data, size_t size) {
  uint8_t choice = data[0];
  std::unique_ptr<Graph> graph = graft::fuzz::graph_from_recipe(data + 1, size - 1);
  runtime::CompileOptions options;
  options.source_name = "recipe";
  options.blocked_layouts = (choice & 1) == 0;
  options.in_place = (choice & 2) == 0;
  options.reuse_memory = (choice & 4) == 0;
  options.winograd = (choice & 8) == 0;
  options.shapes.symbols["N"] = 1 + (choice >> 4) % 4;
  compile_and_run(*graph, options, choice, graft::format_graph_table(*graph));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // oneDNN's OpenMP team of one: a fuzzer process is one job, and kernels then choose their
  // blocking for one thread, deterministically.
  static const bool threads_set = (runtime::set_num_threads(1), true);
  (void)threads_set;
  if (size == 0) return 0;
  if (data[0] == '{') {
    from_model_json(std::string(reinterpret_cast<const char*>(data), size));
  } else {
    from_recipe(data, size);
  }
  return 0;
}
