// Opening and reading the files graft is given as input (model.json, .rules, .npy, safetensors):
// regular files only, no larger than a limit that is checked before a byte is read. A FIFO, a
// device or a directory named by mistake is refused at once, where reading it would block
// forever (a FIFO without a writer) or until memory runs out (/dev/zero).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace graft {

/// What a reader accepts.
struct InputFileKind {
  const char* noun;        // "rule file": "'x' is a directory, not a rule file"
  uint64_t max_bytes;      // larger files are refused before reading
  const char* advice = nullptr;  // appended to the too-large message, in parentheses
};

/// An open regular file of at most its kind's size; closed when destroyed.
class InputFile {
 public:
  /// Opens `path` read-only (non-blocking, so a FIFO cannot block) and checks that it is a
  /// regular file within `kind.max_bytes`. nullopt with `error` set otherwise, e.g. "cannot
  /// open 'x': No such file or directory", "'x' is not a regular file (it is a FIFO)".
  static std::optional<InputFile> open(const std::string& path, const InputFileKind& kind,
                                       std::string* error);
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  /// The size when opened; reads never go past it, so a file that grows meanwhile costs no
  /// more than it did then.
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  /// Reads exactly `n` bytes at `offset` into `out`; false with `error` set on an I/O error or
  /// if the file ends first (it shrank since it was opened).
  [[nodiscard]] bool read_at(uint64_t offset, void* out, size_t n, std::string* error) const;
  /// The whole file, size() bytes.
  std::optional<std::string> read_all(std::string* error) const;

 private:
  InputFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

/// InputFile::open, then read_all.
std::optional<std::string> read_input_file(const std::string& path, const InputFileKind& kind,
                                           std::string* error);

}  // namespace graft
