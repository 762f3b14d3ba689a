// `rewrite print MODEL`: loads and verifies a model and prints its graph as a torch.fx-style
// table (`opcode name target args kwargs type`).
#include <CLI/CLI.hpp>

#include <iostream>

#include "engine/io/graph_printer.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {

Handler setup_print(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  auto paths = std::make_shared<PathPolicy>();
  sub.add_option("model", *path, "model.json")->required();
  add_allow_path_option(sub, *paths);
  return [path, paths]() {
    std::optional<Model> model = load_verified_model(*path, *paths);
    if (!model) return kExitInputRejected;
    std::cout << format_graph_table(*model->graph);
    return kExitOk;
  };
}

}  // namespace graft::cli
