// The subcommand table of `rewrite` (ninja's ChooseTool): one row per subcommand with its
// one-line help and a setup function that declares its options and installs its handler.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace graft::cli {

/// Exit codes, documented in docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitInputRejected = 1,  // bad rules, model, weights: diagnostics printed
  kExitUsage = 2,          // bad flags (CLI11)
  kExitInternal = 3,       // a bug in graft
};

/// Runs a subcommand after its options are parsed; returns the exit code.
using Handler = std::function<int()>;

struct Command {
  const char* name;
  const char* help;
  /// Declares the subcommand's options on `sub` and returns the handler that runs it.
  Handler (*setup)(CLI::App& sub);
};

/// Every subcommand, in the order `rewrite --help` lists them.
const std::vector<Command>& commands();

// One per cmd_*.cpp.
Handler setup_print(CLI::App& sub);
Handler setup_dot(CLI::App& sub);
Handler setup_ops(CLI::App& sub);
Handler setup_check(CLI::App& sub);
Handler setup_test(CLI::App& sub);
Handler setup_verify(CLI::App& sub);
Handler setup_run(CLI::App& sub);
Handler setup_bench(CLI::App& sub);
/// The main job on the top-level app: `rewrite MODEL -o OUT`.
Handler setup_rewrite(CLI::App& app);

}  // namespace graft::cli
