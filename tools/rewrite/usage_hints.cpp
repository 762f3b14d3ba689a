// See usage_hints.h.
#include "tools/rewrite/usage_hints.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <vector>

#include "engine/support/edit_distance.h"
#include "engine/support/terminal_text.h"

namespace graft::cli {
namespace {

std::vector<std::string> long_flags(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

/// The command whose parse went furthest: the parsed subcommand, if any.
const CLI::App& innermost(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->parsed()) return innermost(*sub);
  }
  return app;
}

}  // namespace

std::string usage_hints(const CLI::App& app) {
  const CLI::App& command = innermost(app);
  std::string out;
  for (const std::string& extra : command.remaining()) {
    if (extra.rfind("--", 0) == 0) {
      std::string flag = extra.substr(0, extra.find('='));
      std::string near = closest_match(flag, long_flags(command));
      if (!near.empty()) out += "'" + escape_for_terminal(flag) + "': did you mean '" + near + "'?\n";
    }
  }
  if (&command == &app) out += subcommand_hint(app);
  return out;
}

std::string subcommand_hint(const CLI::App& app) {
  // `rewrite tset x.rules`: the main job took "tset" for a model path.
  if (app.count("model") == 0) return "";
  std::string model = app.get_option("model")->as<std::string>();
  std::error_code ec;
  // Two edits: a swapped pair of letters ("tset") is the common typo of a short name.
  std::string near;
  int best = 3;
  for (const std::string& name : subcommand_names(app)) {
    int d = edit_distance(model, name, best);
    if (d < best) {
      best = d;
      near = name;
    }
  }
  if (near.empty() || std::filesystem::exists(model, ec)) return "";
  return "'" + escape_for_terminal(model) + "' is not a file: did you mean the subcommand '" +
         near + "'?\n";
}

}  // namespace graft::cli
