// What subcommands share to read their inputs: loading a model (load, verify, print
// diagnostics to stderr) and the --allow-path option that widens where the files named inside
// models and rule files (weights, imports) may lie.
#pragma once

#include <optional>
#include <string>

#include "engine/io/model_json.h"
#include "engine/support/confined_path.h"

namespace CLI {
class App;
}

namespace graft::cli {

/// Declares `--allow-path DIR` (repeatable, one folder each) on `app`, filling `policy`.
void add_allow_path_option(CLI::App& app, PathPolicy& policy);

/// Loads `path` and, with `verify`, runs the graph verifier. On failure prints every
/// diagnostic and returns nullopt (the caller exits with kExitInputRejected). The loader builds
/// the graph through the graph's checked mutation API, so a command that verifies its result
/// before writing it (the main rewrite job) skips the verifier here, which on a million-node
/// graph costs a tenth of the job.
std::optional<Model> load_model_reporting(const std::string& path, const PathPolicy& policy,
                                          bool verify);

/// load_model_reporting with the verifier.
std::optional<Model> load_verified_model(const std::string& path, const PathPolicy& policy);

}  // namespace graft::cli
