// Page residency hints: faulting fresh memory in ahead of a burst of writes, and handing back
// pages that were read once and are done with.
#pragma once

#include <cstddef>

namespace graft {

/// Asks the kernel to back the whole pages inside [p, p + bytes) with writable memory now, in
/// one call, instead of one page fault per 4 KiB page at first touch. Worth it for a block
/// that is about to be written end to end, as a large rewrite's new nodes (ChunkPool) and
/// folded weights (BufferArena) are. The kernel still allocates, zeroes and charges every
/// page; what goes is the trap per page. Only a hint (MADV_POPULATE_WRITE, Linux 5.14):
/// elsewhere, or when the kernel declines, pages fault as usual.
void populate_for_writing(void* p, size_t bytes);

/// Asks the kernel to reclaim the whole pages inside [p, p + bytes), which the caller has read
/// and will not need soon: the saver streams weights from a memory-mapped file, and without
/// this every page it copied would stay in the process's resident set until the end, as many
/// as the weights are large. The memory stays valid (MADV_PAGEOUT keeps the contents; a later
/// read faults them in again). Only a hint: elsewhere, or when the kernel declines, nothing
/// happens.
void page_out(const void* p, size_t bytes);

}  // namespace graft
