// `rewrite print` (placeholder until the printer lands in this commit series).
#include <CLI/CLI.hpp>

#include "tools/rewrite/commands.h"

namespace graft::cli {

Handler setup_print(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  sub.add_option("model", *path, "model.json")->required();
  return [path]() { return kExitInternal; };
}

}  // namespace graft::cli
