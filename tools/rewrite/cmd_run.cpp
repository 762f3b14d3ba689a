// `rewrite run MODEL [--input NAME=FILE.npy]... [--dim SYM=N]... [--seed S] [--batch B]
// [-o OUT.npz]`: compiles
// the model for the given input shapes, runs it once, prints each output's shape and a short
// checksum, and optionally writes the outputs (named by their nodes) to an .npz file.
#include <CLI/CLI.hpp>

#include <iostream>

#include "engine/support/atomic_file.h"
#include "engine/support/allocator.h"
#include "engine/support/terminal_text.h"
#include "eval/npy.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"
#include "tools/rewrite/run_util.h"

namespace graft::cli {
namespace {

struct RunFlags {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> dims;
  uint64_t seed = 0;
  int64_t batch = 0;
  int threads = 0;
  std::string output;
  bool dump = false;
  bool no_winograd = false;
  PathPolicy paths;
};

int run_model(const RunFlags& flags) {
  DiagnosticEngine diags;
  auto fail = [&] {
    diags.render(std::cerr);
    return kExitInputRejected;
  };
  // An output that cannot be written is refused before the model is compiled and run.
  if (std::string error; !flags.output.empty() && !check_output_path(flags.output, &error)) {
    diags.error(DiagLocation::in_file(flags.output), error);
    return fail();
  }
  RunInputs spec;
  spec.seed = flags.seed;
  if (flags.batch > 0) spec.batch = flags.batch;
  if (!parse_input_flags(flags.inputs, &spec.files, diags) ||
      !parse_dim_flags(flags.dims, &spec.dims, diags)) {
    return fail();
  }
  std::optional<Model> model = load_model(flags.model, diags, flags.paths);
  if (!model) return fail();
  runtime::CompileOptions options;
  options.source_name = flags.model;
  options.winograd = !flags.no_winograd;
  auto files = bind_inputs(*model->graph, spec, options, diags);
  if (!files) return fail();
  keep_freed_memory_for_reuse();  // loaded: from here on kernels allocate and free per call
  runtime::set_num_threads(flags.threads);
  std::unique_ptr<runtime::Executable> exe = runtime::compile(*model->graph, options, diags);
  if (!exe) return fail();
  if (flags.dump) std::cout << escape_lines_for_terminal(exe->dump());
  auto outputs =
      exe->run(make_inputs(*exe, *files, flags.seed, index_bounds(*model->graph)), diags);
  if (!outputs) return fail();
  std::vector<std::pair<std::string, eval::Tensor>> named;
  for (size_t i = 0; i < outputs->size(); ++i) {
    std::cout << escape_for_terminal(exe->outputs()[i].name) << ": "
              << eval::tensor_summary((*outputs)[i]) << "\n";
    named.emplace_back(exe->outputs()[i].name, (*outputs)[i]);
  }
  if (!flags.output.empty() && !eval::write_npz(flags.output, named, diags)) return fail();
  return kExitOk;
}

}  // namespace

Handler setup_run(CLI::App& sub) {
  auto flags = std::make_shared<RunFlags>();
  sub.add_option("model", flags->model, "model.json")->required();
  sub.add_option("--input", flags->inputs, "NAME=FILE.npy: an input's value (repeatable)");
  sub.add_option("--dim", flags->dims, "SYMBOL=N: the size of a symbolic dim (repeatable)");
  sub.add_option("--seed", flags->seed, "seed of the random inputs (for inputs not given)");
  sub.add_option("--batch", flags->batch, "size of symbolic leading (batch) dims; default 1")
      ->check(CLI::PositiveNumber);
  sub.add_option("--threads", flags->threads, "oneDNN threads; default all cores")
      ->check(CLI::Range(1, runtime::kMaxThreads));
  sub.add_option("-o,--output", flags->output, "write the outputs to this .npz file");
  sub.add_flag("--dump", flags->dump, "print the compiled steps and memory plan");
  sub.add_flag("--no-winograd", flags->no_winograd,
               "direct convolutions only (the algorithm PyTorch uses; slower, closer numerics)");
  add_allow_path_option(sub, flags->paths);
  return [flags]() { return run_model(*flags); };
}

}  // namespace graft::cli
