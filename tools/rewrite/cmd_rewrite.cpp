// `rewrite --rules R.rules… MODEL -o OUT.json`: the main job. Loads and checks the rules,
// compiles them into one matcher, loads and verifies the model, runs the phases, verifies the
// result and writes it (model.json + safetensors) atomically. Without --rules the model is
// written back in canonical form (normalising it or re-packing its weights).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/io/graph_printer.h"
#include "engine/ir/verifier.h"
#include "engine/rewrite/rewriter.h"
#include "engine/support/atomic_file.h"
#include "engine/support/edit_distance.h"
#include "engine/support/terminal_text.h"
#include "eval/constant_folder.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/model_util.h"
#include "tools/rewrite/rule_selection.h"

namespace graft::cli {
namespace {

struct RewriteFlags {
  std::string model;
  std::vector<std::string> rules;
  std::string output;
  bool in_place = false;
  bool dry_run = false;
  bool stats = false;
  bool verify_each = false;
  std::string explain;
  std::string dot_before;
  std::string dot_after;
  std::vector<std::string> only;
  std::vector<std::string> disable;
  std::string print_after;  // a phase name, or "all"
  PathPolicy paths;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec);
}

bool write_dot(const Graph& graph, const std::string& path, const std::string& title,
               const std::unordered_set<const Node*>& highlight) {
  DotOptions options;
  options.title = title;
  options.highlight = highlight;
  std::string error;
  if (!write_file_atomically(path, graph_to_dot(graph, options), &error)) {
    std::cerr << "rewrite: error: " << escape_for_terminal(error) << "\n";
    return false;
  }
  return true;
}

void print_stats(const RuleSet& rules, const RewriteResult& result) {
  fmt::print(stderr, "{:<28} {:>10} {:>8} {:>8} {:>10}\n", "rule", "candidates", "matches",
             "applied", "time");
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const RuleStats& s = result.stats[i];
    fmt::print(stderr, "{:<28} {:>10} {:>8} {:>8} {:>8.3f}ms\n",
               escape_for_terminal(rules.rules[i].name), s.candidates,
               s.matches, s.applied, s.seconds * 1e3);
  }
}

/// A rule's `///` doc comment under its explanation, as it is written.
void print_doc(const std::string& doc) {
  if (doc.empty()) return;
  size_t begin = 0;
  while (begin <= doc.size()) {
    size_t end = std::min(doc.find('\n', begin), doc.size());
    std::cout << "  ///" << escape_for_terminal(doc.substr(begin, end - begin)) << "\n";
    begin = end + 1;
  }
}

int rewrite_model(const RewriteFlags& flags) {
  bool writes = !flags.dry_run && flags.explain.empty();
  if (writes && flags.output.empty() && !flags.in_place) {
    std::cerr << "rewrite: error: give -o OUT.json, or --in-place to overwrite "
              << escape_for_terminal(flags.model)
              << " (or --dry-run to only list the matches)\n";
    return kExitUsage;
  }
  std::string output = flags.in_place ? flags.model : flags.output;
  if (writes && !flags.in_place && same_file(flags.model, output)) {
    std::cerr << "rewrite: error: -o " << escape_for_terminal(output)
              << " is the input model; pass --in-place to overwrite it\n";
    return kExitUsage;
  }
  // Outputs that cannot be written are refused before any work is done.
  for (const std::string& path : {writes ? output : "", flags.dot_before, flags.dot_after}) {
    std::string error;
    if (!path.empty() && !check_output_path(path, &error)) {
      std::cerr << "rewrite: error: " << error << "\n";
      return kExitInputRejected;
    }
  }
  // Rules first: they are usually what is being edited, and they do not need the model.
  SourceManager sources;
  DiagnosticEngine rule_diags(&sources);
  std::optional<RuleSet> rules;
  if (!flags.rules.empty()) {
    dsl::LoadOptions load_options;
    load_options.paths = flags.paths;
    std::optional<dsl::RuleFileSet> files =
        dsl::load_rule_files(flags.rules, sources, rule_diags, load_options);
    if (files) rules = dsl::lower(*files, sources, rule_diags);
    rule_diags.render(std::cerr);
    if (!rules) return kExitInputRejected;
  }
  if (!rules) rules.emplace();
  if (std::string error; !select_rules(*rules, flags.only, flags.disable, &error)) {
    std::cerr << "rewrite: error: " << escape_for_terminal(error) << "\n";
    return kExitUsage;
  }
  if (!flags.print_after.empty() && flags.print_after != "all" &&
      std::none_of(rules->phases.begin(), rules->phases.end(),
                   [&](const Phase& p) { return p.name == flags.print_after; })) {
    std::vector<std::string> phases;
    for (const Phase& p : rules->phases) phases.push_back(p.name);
    std::cerr << "rewrite: error: --print-after: no phase '" << escape_for_terminal(flags.print_after)
              << "'" << did_you_mean(flags.print_after, phases) << " (or give 'all')\n";
    return kExitUsage;
  }
  // The rewritten graph is verified before it is written; the loaded one only with
  // --verify-each, as a pass pipeline verifies its input.
  std::optional<Model> model = load_model_reporting(flags.model, flags.paths, flags.verify_each);
  if (!model) return kExitInputRejected;
  CompiledRules compiled(*rules);

  if (!flags.explain.empty()) {
    size_t at = flags.explain.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == flags.explain.size()) {
      std::cerr << "rewrite: error: --explain takes RULE@NODE, got '"
                << escape_for_terminal(flags.explain) << "'\n";
      return kExitUsage;
    }
    DiagnosticEngine diags(&sources);
    std::string rule = flags.explain.substr(0, at);
    std::string node = flags.explain.substr(at + 1);
    RewriteOptions options;
    options.fold = eval::reference_constant_folder();
    // The run rewrites a copy: explaining writes nothing.
    std::optional<RunExplanation> run =
        explain_in_run(*model->graph, compiled, options, rule, node, diags);
    diags.render(std::cerr);
    if (!run) return kExitInputRejected;
    std::cout << escape_lines_for_terminal(format_run_explanation(rule, node, *run));
    print_doc(rules->rules[static_cast<size_t>(rules->find_rule(rule))].doc);
    return kExitOk;
  }

  if (!flags.dot_before.empty() && !write_dot(*model->graph, flags.dot_before, flags.model, {})) {
    return kExitInputRejected;
  }
  size_t nodes_before = model->graph->size();
  RewriteOptions options;
  options.fold = eval::reference_constant_folder();
  options.verify_each_phase = flags.verify_each;
  options.time_rules = flags.stats;
  if (!flags.print_after.empty()) {
    options.after_phase = [&](const Phase& phase, const Graph& graph) {
      if (flags.print_after != "all" && flags.print_after != phase.name) return;
      std::cout << "# after phase " << escape_for_terminal(phase.name) << "\n"
                << escape_lines_for_terminal(format_graph_table(graph)) << std::flush;
    };
  }
  // The rules' text stays loaded in `sources`: the driver's errors about a rule show its line.
  DiagnosticEngine diags(&sources);
  RewriteResult result = rewrite_graph(*model->graph, compiled, options, diags);
  if (result.ok && !verify_graph(*model->graph, diags, "rewritten " + flags.model)) result.ok = false;
  diags.render(std::cerr);
  if (flags.stats) print_stats(*rules, result);
  if (!result.ok || diags.has_errors()) return kExitInputRejected;
  if (flags.dry_run) {
    for (const AppliedRewrite& a : result.applied) {
      std::cout << escape_for_terminal(a.rule) << " at " << escape_for_terminal(a.anchor) << "\n";
    }
    std::cout << result.applied.size() << " rewrite" << (result.applied.size() == 1 ? "" : "s")
              << " (dry run: nothing written)\n";
    return kExitOk;
  }
  model->graph->compact();
  if (!flags.dot_after.empty()) {
    std::unordered_set<const Node*> created(result.created.begin(), result.created.end());
    if (!write_dot(*model->graph, flags.dot_after, output, created)) return kExitInputRejected;
  }
  if (!save_model(*model, output, diags)) {
    diags.render(std::cerr);
    return kExitInputRejected;
  }
  std::cerr << "rewrite: " << result.applied.size() << " rewrite"
            << (result.applied.size() == 1 ? "" : "s") << ", " << nodes_before << " -> "
            << model->graph->size() << " nodes; wrote " << escape_for_terminal(output) << "\n";
  return kExitOk;
}

}  // namespace

Handler setup_rewrite(CLI::App& app) {
  auto flags = std::make_shared<RewriteFlags>();
  app.add_option("model", flags->model, "model.json to rewrite");
  app.add_option("-r,--rules", flags->rules, ".rules file to apply (repeatable; phases run in order)")
      ->allow_extra_args(false);  // one file per --rules, so the model path is not taken
  app.add_option("-o,--output", flags->output, "where to write the result (model.json path)");
  app.add_flag("--in-place", flags->in_place, "overwrite the input model")
      ->excludes(app.get_option("--output"));
  app.add_flag("--dry-run", flags->dry_run, "list the rewrites that would be applied; write nothing");
  app.add_flag("--stats", flags->stats, "per rule: candidates, matches, applied, time (stderr)");
  app.add_flag("--verify-each", flags->verify_each,
               "run the graph verifier on the loaded graph and after every phase (the result is "
               "always verified)");
  app.add_option("--explain", flags->explain,
                 "RULE@NODE: why RULE does or does not rewrite at NODE; writes nothing");
  app.add_option("--only", flags->only, "run only this rule (repeatable)")->option_text("RULE")
      ->allow_extra_args(false);
  app.add_option("--disable", flags->disable, "do not run this rule (repeatable)")
      ->option_text("RULE")->allow_extra_args(false);
  app.add_option("--print-after", flags->print_after,
                 "print the graph after phase PHASE, or after every phase ('all')")
      ->option_text("PHASE|all");
  app.add_option("--dot", flags->dot_before, "write the graph before rewriting as Graphviz DOT");
  app.add_option("--dot-after", flags->dot_after,
                 "write the rewritten graph as DOT, created nodes highlighted");
  add_allow_path_option(app, flags->paths);
  return [flags]() { return rewrite_model(*flags); };
}

}  // namespace graft::cli
