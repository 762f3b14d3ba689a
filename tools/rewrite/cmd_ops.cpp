// `rewrite ops`: the op registry, one signature per line, grouped by class on request.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/op_registry.h"
#include "tools/rewrite/commands.h"

namespace graft::cli {

Handler setup_ops(CLI::App& sub) {
  auto verbose = std::make_shared<bool>(false);
  sub.add_flag("-v,--verbose", *verbose, "also print op classes and docs");
  return [verbose]() {
    for (const OpSchema& op : OpRegistry::get().ops()) {
      fmt::print("{}\n", op.signature);
      if (*verbose) {
        fmt::print("    {}{}{}\n", op.doc, op.classes.empty() ? "" : "  [",
                   op.classes.empty() ? "" : fmt::format("{}]", fmt::join(op.classes, ", ")));
      }
    }
    return kExitOk;
  };
}

}  // namespace graft::cli
