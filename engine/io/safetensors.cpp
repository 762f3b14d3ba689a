// Reads safetensors files (safetensors_writer.cpp writes them). The reader checks the whole header before it hands out a
// single tensor: every problem becomes a diagnostic located by the header's JSON pointer, and no
// byte outside the input is ever read. Tensor data stays in the mapping (ConstantTensor::owner
// keeps it alive), except a tensor that lands unaligned for its dtype, which gets a copy.
#include "engine/io/safetensors.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/io/safetensors_header.h"
#include "engine/support/confined_path.h"
#include "engine/support/input_file.h"

namespace graft {
namespace {

constexpr size_t kLengthBytes = 8;  // the u64 header length in front of the header

/// Reads the u64 byte by byte: the input has no alignment guarantee and the host may not be
/// little-endian.
uint64_t read_u64_le(const std::byte* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | std::to_integer<uint64_t>(p[i]);
  return value;
}

}  // namespace

// ** Mapping **

std::shared_ptr<const MappedFile> map_safetensors_file(const std::string& path, std::string* error,
                                                       const FileConfinement* confinement) {
  // Only the header is read up front (checked against its own limit), so no size limit here.
  std::string why;
  std::optional<InputFile> input =
      InputFile::open(path, {"safetensors file", std::numeric_limits<uint64_t>::max()}, &why);
  if (input && confinement != nullptr && !confinement->check_opened(input->fd(), path, &why)) {
    input.reset();
  }
  // An empty file stays unmapped (data() == nullptr) and the parser reports it as too small.
  std::optional<MappedFile> mapped = input ? MappedFile::map(*input, &why) : std::nullopt;
  if (!mapped) {
    if (error != nullptr) *error = why;
    return nullptr;
  }
  // The mapping holds its own reference to the file, which `input` closes.
  return std::make_shared<const MappedFile>(std::move(*mapped));
}

// ** Reading **

std::optional<SafetensorsFile> read_safetensors(const std::string& path, DiagnosticEngine& diags,
                                                const FileConfinement* confinement) {
  std::string error;
  std::shared_ptr<const MappedFile> file = map_safetensors_file(path, &error, confinement);
  if (file == nullptr) {
    diags.error(DiagLocation::in_file(path), error);
    return std::nullopt;
  }
  std::optional<SafetensorsFile> parsed =
      parse_safetensors(file->data(), file->size(), file, path, diags);
  if (parsed) {
    for (auto& [name, t] : parsed->tensors) {
      t.file_backed = t.data >= file->data() && t.data < file->data() + file->size();
    }
  }
  return parsed;
}

void drop_resident_pages(const ConstantTensor& c) {
  if (!c.file_backed || c.nbytes == 0) return;
  // Only the pages that hold nothing but this tensor's bytes: a neighbour's are left alone.
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(c.data) + page - 1) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(c.data) + c.nbytes) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::optional<SafetensorsFile> parse_safetensors(const std::byte* data, size_t size,
                                                 std::shared_ptr<const void> owner,
                                                 const std::string& display_name,
                                                 DiagnosticEngine& diags) {
  if (size < kLengthBytes) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("file too small for a safetensors header: {} bytes, expected at "
                            "least 8",
                            size));
    return std::nullopt;
  }
  uint64_t header_length = read_u64_le(data);
  uint64_t room = size - kLengthBytes;
  if (header_length > room) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("header length {} exceeds the file size of {} bytes (at most {} "
                            "bytes can follow the 8-byte length)",
                            header_length, size, room));
    return std::nullopt;
  }
  if (header_length > detail::kMaxSafetensorsHeaderBytes) {
    diags.error(DiagLocation::in_file(display_name),
                fmt::format("header length {} exceeds the limit of {} bytes (as in the reference "
                            "implementation; real headers take a few hundred bytes per tensor)",
                            header_length, detail::kMaxSafetensorsHeaderBytes));
    return std::nullopt;
  }
  std::optional<SafetensorsFile> file = detail::parse_safetensors_header(
      {reinterpret_cast<const char*>(data + kLengthBytes), header_length},
      data + kLengthBytes + header_length, room - header_length, owner, display_name, diags);
  // Kernels read constants as typed arrays, so a tensor whose bytes sit at an address that is
  // not a multiple of its element size (a header not padded to 8 bytes, an odd-sized bool
  // tensor before a float one) gets an aligned copy of its own.
  if (!file) return std::nullopt;
  for (auto& [name, t] : file->tensors) {
    if (reinterpret_cast<uintptr_t>(t.data) % dtype_size(t.dtype()) == 0) continue;
    std::vector<std::byte> bytes(t.data, t.data + t.nbytes);
    t = ConstantTensor::owned(t.dtype(), t.shape(), std::move(bytes));
  }
  return file;
}

}  // namespace graft
