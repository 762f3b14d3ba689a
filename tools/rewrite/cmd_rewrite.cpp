// `rewrite MODEL -o OUT.json`: the main job. Loads and verifies a model and writes it back in
// canonical form (docs/model-format.md, "Saving") with its weights, atomically. Rule
// application (`--rules`) arrives with the matcher and driver (issue 4); until then the model
// is written unchanged, which is also how a model is normalised or its weights re-packed.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "engine/verifier.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {
namespace {

struct RewriteFlags {
  std::string model;
  std::string output;
  bool in_place = false;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec);
}

int rewrite_model(const RewriteFlags& flags) {
  if (flags.output.empty() && !flags.in_place) {
    std::cerr << "rewrite: error: give -o OUT.json, or --in-place to overwrite " << flags.model
              << "\n";
    return kExitUsage;
  }
  std::string output = flags.in_place ? flags.model : flags.output;
  if (!flags.in_place && same_file(flags.model, output)) {
    std::cerr << "rewrite: error: -o " << output
              << " is the input model; pass --in-place to overwrite it\n";
    return kExitUsage;
  }
  std::optional<Model> model = load_verified_model(flags.model);
  if (!model) return kExitInputRejected;
  DiagnosticEngine diags;
  if (!save_model(*model, output, diags)) {
    diags.render(std::cerr);
    return kExitInputRejected;
  }
  std::cerr << "rewrite: wrote " << output << " (" << model->graph->size() << " nodes)\n";
  return kExitOk;
}

}  // namespace

Handler setup_rewrite(CLI::App& app) {
  auto flags = std::make_shared<RewriteFlags>();
  app.add_option("model", flags->model, "model.json to rewrite");
  app.add_option("-o,--output", flags->output, "where to write the result (model.json path)");
  app.add_flag("--in-place", flags->in_place, "overwrite the input model")
      ->excludes(app.get_option("--output"));
  return [flags]() { return rewrite_model(*flags); };
}

}  // namespace graft::cli
