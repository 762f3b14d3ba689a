// rewrite: the graft command-line tool. Parses flags with CLI11, dispatches to the subcommand
// table in commands.cpp, and maps every way of ending to a documented exit code: no run ends
// by a signal or an uncaught exception.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <new>

#include "engine/support/allocator.h"
#include "engine/support/terminal_text.h"
#include "eval/allocation.h"
#include "runtime/executable.h"
#include "tools/rewrite/commands.h"
#include "tools/rewrite/usage_hints.h"

namespace {

int run(int argc, char** argv) {
  using namespace graft::cli;
  CLI::App app{"graft: declarative graph rewrites for neural-network models", "rewrite"};
  app.set_version_flag("--version", std::string("rewrite (graft) ") + GRAFT_VERSION + ", " +
                                        graft::allocator_name());
  app.require_subcommand(0, 1);
  // CLI11's messages quote the arguments they reject.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return graft::escape_lines_for_terminal(CLI::FailureMessage::simple(a, e)) + usage_hints(*a);
  });
  Handler main_job = setup_rewrite(app);
  std::map<CLI::App*, Handler> handlers;
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.help);
    handlers[sub] = command.setup(*sub);
  }
  app.footer("Exit codes: 0 ok, 1 input rejected, 2 usage error, 3 internal error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  for (auto& [sub, handler] : handlers) {
    if (!sub->parsed()) continue;
    if (app.count("--allow-path") > 0) {
      // There it set the main job's folders, which this subcommand would silently not use.
      std::fprintf(stderr, "rewrite: error: give --allow-path after the subcommand: rewrite %s "
                           "... --allow-path DIR\n", sub->get_name().c_str());
      return kExitUsage;
    }
    return handler();
  }
  if (app.count("model") == 0) {
    std::fprintf(stderr, "%s", app.help().c_str());
    return kExitUsage;
  }
  const int code = main_job();
  if (code != kExitOk) std::fprintf(stderr, "%s", subcommand_hint(app).c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  graft::install_out_of_memory_handler();
  graft::return_freed_memory_at_once();
  graft::runtime::set_num_threads(0);  // OMP_NUM_THREADS, if set, at most kMaxThreads
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc& e) {
    // Too large a model for this machine is a rejected input, not a bug in graft.
    // eval::AllocationError says what and how much; a plain bad_alloc only "out of memory".
    const bool specific = dynamic_cast<const graft::eval::AllocationError*>(&e) != nullptr;
    std::fprintf(stderr, "rewrite: error: %s\n",
                 specific ? graft::escape_for_terminal(e.what()).c_str() : "out of memory");
    return graft::cli::kExitInputRejected;
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "rewrite: internal error: %s\nthis is a bug in graft; please report it with the "
                 "command line and inputs\n",
                 graft::escape_for_terminal(e.what()).c_str());
    return graft::cli::kExitInternal;
  }
}
