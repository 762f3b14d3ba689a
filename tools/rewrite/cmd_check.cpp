// `rewrite check FILE…`: parses and checks rule files (with their imports) without running
// anything; prints every diagnostic, then a summary of the rules, phases and tests, or with
// `--dump` the lowered rules and the compiled matcher's tables (docs/matcher.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/match/matcher.h"
#include "engine/support/terminal_text.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {

Handler setup_check(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  auto dump = std::make_shared<bool>(false);
  auto options = std::make_shared<dsl::LoadOptions>();
  sub.add_option("files", *paths, ".rules files to check")->required();
  sub.add_flag("-q,--quiet", *quiet, "print diagnostics only, no summary");
  sub.add_flag("--dump", *dump,
               "print the lowered rules and the compiled matcher's tables instead of the summary");
  add_allow_path_option(sub, options->paths);
  return [paths, quiet, dump, options]() {
    SourceManager sources;
    DiagnosticEngine diags(&sources);
    std::optional<dsl::RuleFileSet> rules = dsl::load_rule_files(*paths, sources, diags, *options);
    // Lowering reports what checks but cannot run (a parameter no pattern op reads), so
    // check lowers too: a file it accepts is one `rewrite --rules` and `verify` accept.
    std::optional<RuleSet> lowered;
    if (rules) lowered = dsl::lower(*rules, sources, diags);
    diags.render(std::cerr);
    if (!rules || !lowered) {
      fmt::print(stderr, "{} error{} found\n", diags.error_count(),
                 diags.error_count() == 1 ? "" : "s");
      return kExitInputRejected;
    }
    if (*dump) {
      CompiledRules compiled(*lowered);
      fmt::print("{}", escape_lines_for_terminal("# rule set\n" + lowered->dump() +
                                                  "# compiled matcher\n" + compiled.dump()));
    } else if (!*quiet) {
      fmt::print("{}", escape_lines_for_terminal(rules->summary()));
    }
    return kExitOk;
  };
}

}  // namespace graft::cli
