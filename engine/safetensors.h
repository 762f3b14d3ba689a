// The safetensors format: read with full bounds checking (memory-mapped, no copies); written
// by safetensors_writer.h. https://huggingface.co/docs/safetensors — an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {…}}, data.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/constants.h"
#include "engine/support/diagnostics.h"

namespace graft {

/// A memory-mapped file; unmapped when the last ConstantTensor pointing into it is gone.
class MappedFile {
 public:
  /// Maps `path` read-only. Returns nullptr and sets `error` if it cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path, std::string* error);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile() = default;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

struct SafetensorsFile {
  std::map<std::string, ConstantTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/// Reads and validates a safetensors file. Returns nullopt after reporting every problem to
/// `diags` with the file name and the header's JSON pointer ("/conv.weight/data_offsets").
[[nodiscard]] std::optional<SafetensorsFile> read_safetensors(const std::string& path,
                                                              DiagnosticEngine& diags);
/// The same, for bytes already in memory (tests, fuzzing); `owner` keeps them alive.
[[nodiscard]] std::optional<SafetensorsFile> parse_safetensors(
    const std::byte* data, size_t size, std::shared_ptr<const void> owner,
    const std::string& display_name, DiagnosticEngine& diags);

}  // namespace graft
