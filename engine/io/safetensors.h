// The safetensors format: read with full bounds checking (memory-mapped, no copies); written
// by safetensors_writer.h. https://huggingface.co/docs/safetensors — an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {…}}, data.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/ir/constants.h"
#include "engine/support/confined_path.h"
#include "engine/support/diagnostics.h"
#include "engine/support/mapped_file.h"

namespace graft {

/// Maps the safetensors file `path` read-only (engine/support/mapped_file.h). Returns nullptr
/// and sets `error` if it cannot be opened or mapped, is not a regular file
/// (engine/support/input_file.h), or if `confinement` is given and the opened file lies outside
/// its folders. The mapping goes when the last ConstantTensor pointing into it is gone.
std::shared_ptr<const MappedFile> map_safetensors_file(const std::string& path, std::string* error,
                                                       const FileConfinement* confinement = nullptr);

/// Lets the kernel drop the resident pages of a file-backed constant (ConstantTensor::
/// file_backed; others are left alone): its bytes stay readable, paged back in from the file
/// if read again. The runtime calls it once it holds a reordered copy of a weight, so that the
/// process does not keep both in memory.
void drop_resident_pages(const ConstantTensor& c);

struct SafetensorsFile {
  std::map<std::string, ConstantTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/// Reads and validates a safetensors file. Returns nullopt after reporting every problem to
/// `diags` with the file name and the header's JSON pointer ("/conv.weight/data_offsets").
/// As the reference reader does, it requires strict JSON (no NUL byte, no name twice) and
/// tensors that cover the data section exactly: no hole, no overlap, no trailing byte. With
/// `confinement`, the opened file must lie in its folders (a path from its resolve()).
[[nodiscard]] std::optional<SafetensorsFile> read_safetensors(
    const std::string& path, DiagnosticEngine& diags,
    const FileConfinement* confinement = nullptr);
/// The same, for bytes already in memory (tests, fuzzing); `owner` keeps them alive.
[[nodiscard]] std::optional<SafetensorsFile> parse_safetensors(
    const std::byte* data, size_t size, std::shared_ptr<const void> owner,
    const std::string& display_name, DiagnosticEngine& diags);

}  // namespace graft
