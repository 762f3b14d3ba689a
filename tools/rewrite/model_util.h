// Loading a model for a subcommand: load, verify, print diagnostics to stderr.
#pragma once

#include <optional>
#include <string>

#include "engine/model_json.h"

namespace graft::cli {

/// Loads `path` and runs the graph verifier. On failure prints every diagnostic and returns
/// nullopt (the caller exits with kExitInputRejected).
std::optional<Model> load_verified_model(const std::string& path);

}  // namespace graft::cli
