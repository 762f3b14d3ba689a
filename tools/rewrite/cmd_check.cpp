// `rewrite check FILE…`: parses and checks rule files (with their imports) without running
// anything; prints every diagnostic, then a summary of the rules, phases and tests.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "dsl/load.h"
#include "engine/support/terminal_text.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {

Handler setup_check(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  auto options = std::make_shared<dsl::LoadOptions>();
  sub.add_option("files", *paths, ".rules files to check")->required();
  sub.add_flag("-q,--quiet", *quiet, "print diagnostics only, no summary");
  add_allow_path_option(sub, options->paths);
  return [paths, quiet, options]() {
    SourceManager sources;
    DiagnosticEngine diags(&sources);
    std::optional<dsl::RuleFileSet> rules = dsl::load_rule_files(*paths, sources, diags, *options);
    diags.render(std::cerr);
    if (!rules) {
      fmt::print(stderr, "{} error{} found\n", diags.error_count(),
                 diags.error_count() == 1 ? "" : "s");
      return kExitInputRejected;
    }
    if (!*quiet) fmt::print("{}", escape_lines_for_terminal(rules->summary()));
    return kExitOk;
  };
}

}  // namespace graft::cli
