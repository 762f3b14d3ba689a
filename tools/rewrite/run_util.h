// Shared by `rewrite run` and `rewrite bench`: loading a model, binding its inputs (--input
// files) and symbolic dims (--dim, --batch, the files' shapes), and making the input tensors
// (random ones valid for the model: int64 indices within the table they index).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/model_json.h"
#include "runtime/executable.h"

namespace graft::cli {

struct RunInputs {
  std::map<std::string, std::string> files;  // input name -> .npy path (--input NAME=FILE)
  std::map<std::string, int64_t> dims;       // symbol -> size (--dim SYM=N)
  std::optional<int64_t> batch;              // --batch: the size of every symbolic leading dim
  uint64_t seed = 0;                         // random inputs where no file is given
};

/// Parses "NAME=FILE" flags into `files`; false after reporting a malformed or repeated one.
[[nodiscard]] bool parse_input_flags(const std::vector<std::string>& flags,
                                     std::map<std::string, std::string>* files,
                                     DiagnosticEngine& diags);
/// Parses "SYM=N" flags (N a non-negative integer) into `dims`; false after reporting a
/// malformed or repeated one.
[[nodiscard]] bool parse_dim_flags(const std::vector<std::string>& flags,
                                   std::map<std::string, int64_t>* dims, DiagnosticEngine& diags);

/// Reads the .npy inputs and fills `options.shapes` so every placeholder has a concrete
/// shape: a file's shape, else the declared one with its symbols bound by --dim, symbolic
/// leading dims by --batch (default 1). Returns the tensors read (by input name), or nullopt
/// after reporting an unknown input name or symbol (listing the model's), a file of another
/// dtype or rank than the input's, or a bad file. A symbol left unbound is reported when the
/// model is compiled.
[[nodiscard]] std::optional<std::map<std::string, eval::Tensor>> bind_inputs(
    const Graph& graph, const RunInputs& inputs, runtime::CompileOptions& options,
    DiagnosticEngine& diags);

/// For each int64 input that indexes something (embedding's indices, index_select's index,
/// directly or through views and permutes), the number of rows it may index: the smallest
/// such bound.
std::map<std::string, int64_t> index_bounds(const Graph& graph);

/// The input tensors for `exe`, in order: the files read, random values for the rest (seeded
/// per input from `seed`): float32 uniform in [-1, 1), bool uniform, int64 uniform in
/// [0, bounds[name]) or, for an input that indexes nothing, [0, 10).
std::vector<eval::Tensor> make_inputs(const runtime::Executable& exe,
                                      const std::map<std::string, eval::Tensor>& files,
                                      uint64_t seed, const std::map<std::string, int64_t>& bounds);

}  // namespace graft::cli
