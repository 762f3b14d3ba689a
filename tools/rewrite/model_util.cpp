#include "tools/rewrite/model_util.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "engine/ir/verifier.h"

namespace graft::cli {

void add_allow_path_option(CLI::App& app, PathPolicy& policy) {
  app.add_option("--allow-path", policy.allowed_roots,
                 "also let weights and imports named inside models and rule files lie under "
                 "DIR (repeatable; '/' allows any file)")
      ->option_text("DIR")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);  // one folder per --allow-path, so a positional is not taken
}

std::optional<Model> load_model_reporting(const std::string& path, const PathPolicy& policy,
                                          bool verify) {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model(path, diags, policy);
  if (model && verify && !verify_graph(*model->graph, diags, path)) model.reset();
  diags.render(std::cerr);
  return model;
}

std::optional<Model> load_verified_model(const std::string& path, const PathPolicy& policy) {
  return load_model_reporting(path, policy, /*verify=*/true);
}

}  // namespace graft::cli
