// Which malloc the running program uses: the executables link mimalloc (GRAFT_MIMALLOC in
// CMakeLists.txt), and benchmarks print the one in effect next to their figures.
#pragma once

#include <string>

namespace graft {

/// "mimalloc 2.0.9" when mimalloc serves malloc() in this process, else "the system malloc".
std::string allocator_name();

}  // namespace graft
