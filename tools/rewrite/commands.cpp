// The subcommand table.
#include "tools/rewrite/commands.h"

namespace graft::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"print", "print a model's graph as a torch.fx-style table, or (--rules) a rule file's rules",
       setup_print},
      {"dot", "write a model's graph in Graphviz DOT", setup_dot},
      {"ops", "list the ops of the registry with their signatures", setup_ops},
      {"check", "parse and check .rules files; print a summary of rules, phases and tests",
       setup_check},
      {"test", "run the test blocks of .rules files and report each test's expectations",
       setup_test},
      {"verify",
       "check every rule of .rules files on graphs synthesised from its pattern, on the runtime",
       setup_verify},
      {"run", "run a model on the oneDNN runtime and print (or save) its outputs", setup_run},
      {"bench", "benchmark a model on the runtime: latency percentiles, throughput, peak RSS",
       setup_bench},
  };
  return table;
}

}  // namespace graft::cli
