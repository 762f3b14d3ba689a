// `rewrite print MODEL`: loads and verifies a model and prints its graph as a torch.fx-style
// table (`opcode name target args kwargs type`). `rewrite print --rules FILE…`: checks rule
// files (with their imports) and prints every rule as the checker sees it — its source
// position, benefit and phases, then its `///` doc comment and body in canonical layout.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "dsl/load.h"
#include "dsl/printer.h"
#include "engine/io/graph_printer.h"
#include "engine/support/terminal_text.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"

namespace graft::cli {
namespace {

/// "phase 'fuse' (fixpoint)" for every phase that runs rule `index`, comma-separated.
std::string phases_of(const dsl::RuleFileSet& set, size_t index) {
  std::string out;
  for (const dsl::CheckedPhase& phase : set.phases()) {
    for (size_t r : phase.rules) {
      if (r != index) continue;
      if (!out.empty()) out += ", ";
      out += fmt::format("phase '{}' ({})", phase.name,
                         phase.mode == dsl::ast::PhaseMode::kOnce ? "once" : "fixpoint");
    }
  }
  return out;
}

/// Every rule of the set in the order it was loaded (imports first), separated by blank lines.
std::string format_rules(const dsl::RuleFileSet& set) {
  std::string out;
  for (size_t i = 0; i < set.rules().size(); ++i) {
    const dsl::CheckedRule& rule = set.rules()[i];
    if (i > 0) out += "\n";
    out += fmt::format("# {}, benefit {}", rule.location, rule.benefit);
    const std::string phases = phases_of(set, i);
    if (!phases.empty()) out += ", " + phases;
    out += "\n" + dsl::print_decl(*rule.decl);
  }
  return out;
}

int print_rules(const std::vector<std::string>& paths, const dsl::LoadOptions& options) {
  SourceManager sources;
  DiagnosticEngine diags(&sources);
  std::optional<dsl::RuleFileSet> rules = dsl::load_rule_files(paths, sources, diags, options);
  diags.render(std::cerr);
  if (!rules) return kExitInputRejected;
  std::cout << escape_lines_for_terminal(format_rules(*rules));
  return kExitOk;
}

}  // namespace

Handler setup_print(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  auto rule_paths = std::make_shared<std::vector<std::string>>();
  auto options = std::make_shared<dsl::LoadOptions>();
  CLI::Option* model_option = sub.add_option("model", *path, "model.json");
  sub.add_option("--rules", *rule_paths,
                 ".rules file whose rules to print instead of a model (repeatable)")
      ->allow_extra_args(false)  // one file per --rules, so a model path is not taken
      ->excludes(model_option);
  add_allow_path_option(sub, options->paths);
  return [path, rule_paths, options, model_option]() -> int {
    if (!rule_paths->empty()) return print_rules(*rule_paths, *options);
    if (model_option->count() == 0) {
      std::cerr << "rewrite: error: print needs a model or '--rules FILE'\n";
      return kExitUsage;
    }
    std::optional<Model> model = load_verified_model(*path, options->paths);
    if (!model) return kExitInputRejected;
    std::cout << format_graph_table(*model->graph);
    return kExitOk;
  };
}

}  // namespace graft::cli
