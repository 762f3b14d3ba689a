// Writing safetensors files: the header, then each tensor's bytes, streamed to a sink piece by
// piece so that saving weights larger than memory needs no more memory than a piece.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "engine/ir/constants.h"

namespace graft {

/// Where write_safetensors puts a file's bytes, in order.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  /// Appends `bytes`; false stops the writer (the sink keeps its own reason).
  virtual bool write(std::string_view bytes) = 0;
};

/// The largest piece write_safetensors hands to a sink at once (the header aside).
inline constexpr size_t kSafetensorsChunk = size_t{4} << 20;

/// Writes a safetensors file holding `tensors` to `sink`: tensors sorted by name, the header
/// padded with spaces to a multiple of 8, the data of each tensor byte for byte, in pieces of
/// at most kSafetensorsChunk; the pages of a piece are handed back to the kernel once written
/// (prefault.h's page_out), so streaming from a memory-mapped file keeps little of it
/// resident. Returns false as soon as the sink does. No tensor may be named
/// kReservedConstantName (a programmer error: the saver reports such a name to the user).
[[nodiscard]] bool write_safetensors(const std::map<std::string, ConstantTensor>& tensors,
                                     const std::map<std::string, std::string>& metadata,
                                     ByteSink& sink);

/// The same file's bytes in memory (tests, fuzzing, small files).
std::string serialize_safetensors(const std::map<std::string, ConstantTensor>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});

}  // namespace graft
