// Implementation of the GRAFT_CHECK failure path.
#include "engine/support/check.h"

#include <cstdio>
#include <cstdlib>

#include "engine/support/terminal_text.h"

namespace graft::detail {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": check failed: " << condition << " ";
}

CheckFailure::~CheckFailure() {
  // The message may quote a node's name.
  std::fprintf(stderr, "%s\nthis is a bug in graft; please report it with the input that caused it\n",
               escape_for_terminal(stream_.str()).c_str());
  std::fflush(stderr);
  // Exit code 3 (internal error) instead of SIGABRT: no run of the CLI ends by a signal.
  std::_Exit(3);
}

}  // namespace graft::detail
