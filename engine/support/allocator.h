// Which malloc the running program uses: the executables link mimalloc (GRAFT_MIMALLOC in
// CMakeLists.txt), and benchmarks print the one in effect next to their figures. And what an
// executable does when memory runs out: throw std::bad_alloc, with room left to unwind.
#pragma once

#include <string>

namespace graft {

/// "mimalloc 2.0.9" when mimalloc serves malloc() in this process, else "the system malloc".
std::string allocator_name();

/// Sets aside a reserve of address space (mapped, never touched, so it costs no physical
/// memory) and installs a std::new_handler that releases it and throws std::bad_alloc. The
/// destructors that run while that exception unwinds may allocate themselves (nlohmann::json's
/// frees a large document with a heap stack of its elements); without room they would fail in
/// a noexcept context, and the process would end in std::terminate instead of "out of memory".
/// On any thread but the main one (oneDNN's OpenMP workers, which an exception cannot leave)
/// the handler prints "PROGRAM: error: out of memory" and ends the process with exit code 1.
/// For executables, once at the start of main().
void install_out_of_memory_handler();

/// Makes the allocator give memory that is freed back to the system at once rather than after
/// a delay (mimalloc's decommit delay; nothing with another allocator). A large rewrite frees
/// a model's text and each pass's matches while it allocates new nodes: returned late, that
/// memory counts twice in the peak. For executables, at the start of main().
void return_freed_memory_at_once();

/// Makes the allocator keep memory that is freed committed for a short while (mimalloc's
/// default decommit delay) so that it is reused without faulting its pages in again: oneDNN's
/// sgemm, which attention calls per block, allocates and frees a 13 MB packing buffer per call,
/// and giving it back at once cost attention half its time. For executables, before they run a
/// model; undoes return_freed_memory_at_once().
void keep_freed_memory_for_reuse();

}  // namespace graft
