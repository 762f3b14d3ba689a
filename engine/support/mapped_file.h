// MappedFile: a large input file read through a read-only mapping rather than copied into
// memory, so that a reader going through it once can hand back the pages it has passed: a
// 100 MB model.json then costs a few megabytes of resident memory while it is parsed, not its
// size. Pages handed back and read again are read again from the file (the mapping is of the
// file, not anonymous memory), so handing back too early costs time, never correctness.
//
// A file that shrinks while mapped makes reading past its new end raise SIGBUS; while any
// mapping lives, graft handles that signal by reporting that the file changed while it was
// read, removing the temporaries of atomic writes (temp_file_cleanup.h) and exiting with
// status 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/support/input_file.h"

namespace graft {

class MappedFile {
 public:
  /// Maps all of `file`; nullopt with `error` set when mmap fails. An empty file is not mapped
  /// (mmap refuses length 0): data() is then null.
  static std::optional<MappedFile> map(const InputFile& file, std::string* error);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::byte* data() const { return reinterpret_cast<const std::byte*>(data_); }
  size_t size() const { return size_; }
  /// The bytes as text; "" (not a null view, which C string functions may not take) when empty.
  std::string_view text() const { return data_ != nullptr ? std::string_view(data_, size_) : ""; }
  /// Hands back the resident pages wholly before byte `offset` that were not handed back yet,
  /// once they add up to kReleaseStep (a system call per page would cost more than it saves).
  void release_before(size_t offset);

  static constexpr size_t kReleaseStep = size_t{8} << 20;

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;  // pages before this offset have been handed back
};

}  // namespace graft
