// "Did you mean" for the command line: a misspelt flag ("--stast") or subcommand ("tset"),
// appended to CLI11's message, which names the argument but not what was meant.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace graft::cli {

/// Suggestions for the arguments `app` (the command or subcommand whose parse failed) could
/// not place: the nearest flag of that command for each unknown flag, the nearest subcommand
/// for an unknown word where the top-level command expected a model; "" when none is close.
std::string usage_hints(const CLI::App& app);

/// The nearest subcommand when the main job's model path does not exist and is close to one
/// (`rewrite prnt -o out.json`, which parses as a rewrite of the file 'prnt'); "" otherwise.
std::string subcommand_hint(const CLI::App& app);

}  // namespace graft::cli
