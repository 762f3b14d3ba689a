// Shared by `rewrite run` and `rewrite bench`: loading a model, binding its symbolic input
// dims (--batch, or the shapes of the given .npy inputs), and making the input tensors.
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
  std::optional<int64_t> batch;              // --batch: the size of every symbolic leading dim
  uint64_t seed = 0;                         // random inputs where no file is given
};

/// Parses "NAME=FILE" flags into `files`; false after reporting a malformed or repeated one.
[[nodiscard]] bool parse_input_flags(const std::vector<std::string>& flags,
                                     std::map<std::string, std::string>* files,
                                     DiagnosticEngine& diags);

/// Reads the .npy inputs and fills `options.shapes` so every placeholder has a concrete
/// shape: a file's shape, else the declared one with symbolic leading dims set to --batch
/// (default 1). Returns the tensors read (by input name), or nullopt after reporting an
/// unknown input name (with a suggestion) or a bad file.
[[nodiscard]] std::optional<std::map<std::string, eval::Tensor>> bind_inputs(
    const Graph& graph, const RunInputs& inputs, runtime::CompileOptions& options,
    DiagnosticEngine& diags);

/// The input tensors for `exe`, in order: the files read, random values (uniform in [-1, 1),
/// seeded per input from `seed`) for the rest.
std::vector<eval::Tensor> make_inputs(const runtime::Executable& exe,
                                         const std::map<std::string, eval::Tensor>& files,
                                         uint64_t seed);

}  // namespace graft::cli
