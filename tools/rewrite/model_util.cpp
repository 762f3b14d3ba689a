#include "tools/rewrite/model_util.h"

#include <iostream>

#include "engine/verifier.h"

namespace graft::cli {

std::optional<Model> load_verified_model(const std::string& path) {
  DiagnosticEngine diags;
  std::optional<Model> model = load_model(path, diags);
  if (model && !verify_graph(*model->graph, diags, path)) model.reset();
  diags.render(std::cerr);
  return model;
}

}  // namespace graft::cli
