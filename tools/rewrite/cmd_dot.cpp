// `rewrite dot MODEL [-o FILE.dot]`: the graph in Graphviz DOT (render with `dot -Tsvg`).
#include <CLI/CLI.hpp>

#include <iostream>

#include "engine/io/graph_printer.h"
#include "engine/support/atomic_file.h"
#include "engine/support/terminal_text.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {

Handler setup_dot(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto paths = std::make_shared<PathPolicy>();
  sub.add_option("model", *path, "model.json")->required();
  sub.add_option("-o,--output", *output, "write the DOT here (atomically) instead of stdout");
  add_allow_path_option(sub, *paths);
  return [path, output, paths]() {
    std::string error;
    if (!output->empty() && !check_output_path(*output, &error)) {
      std::cerr << "rewrite: error: " << escape_for_terminal(error) << "\n";
      return kExitInputRejected;
    }
    std::optional<Model> model = load_verified_model(*path, *paths);
    if (!model) return kExitInputRejected;
    DotOptions options;
    options.title = *path;
    std::string dot = graph_to_dot(*model->graph, options);
    if (output->empty()) {
      std::cout << dot;
      return kExitOk;
    }
    if (!write_file_atomically(*output, dot, &error)) {
      std::cerr << "rewrite: error: " << escape_for_terminal(error) << "\n";
      return kExitInputRejected;
    }
    return kExitOk;
  };
}

}  // namespace graft::cli
