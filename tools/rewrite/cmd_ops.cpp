// `rewrite ops`: the op registry, one signature per line; with --verbose also the op classes,
// docs and the values of str attributes that list them; with --markdown the reference
// docs/ops.md is generated from.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/ops/op_docs.h"
#include "engine/ops/op_registry.h"
#include "tools/rewrite/commands.h"

namespace graft::cli {

Handler setup_ops(CLI::App& sub) {
  auto verbose = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  sub.add_flag("-v,--verbose", *verbose, "also print op classes and docs");
  sub.add_flag("--markdown", *markdown, "print the Markdown reference (docs/ops.md)");
  return [verbose, markdown]() {
    if (*markdown) {
      fmt::print("{}", render_ops_markdown(OpRegistry::get()));
      return kExitOk;
    }
    for (const OpSchema& op : OpRegistry::get().ops()) {
      fmt::print("{}\n", op.signature);
      if (*verbose) {
        fmt::print("    {}{}{}\n", op.doc, op.classes.empty() ? "" : "  [",
                   op.classes.empty() ? "" : fmt::format("{}]", fmt::join(op.classes, ", ")));
        for (const AttrSpec& attr : op.attrs) {
          if (!attr.choices.empty()) {
            fmt::print("    {} is one of {}\n", attr.name, quoted_list(attr.choices));
          }
        }
      }
    }
    return kExitOk;
  };
}

}  // namespace graft::cli
