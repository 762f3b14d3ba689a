// open + fstat before any read: the file's type and size decide whether it is read at all.
#include "engine/support/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace graft {
namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string limit_text(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::optional<InputFile> InputFile::open(const std::string& path, const InputFileKind& kind,
                                         std::string* error) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; it changes
  // nothing for regular files, the only ones read.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  InputFile file(fd, 0, path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "'" + path + "' is a directory, not a " + kind.noun;
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = "'" + path + "' is not a regular file (it is " + file_type_name(st.st_mode) + ")";
    return std::nullopt;
  }
  file.size_ = static_cast<uint64_t>(st.st_size);
  if (file.size_ > kind.max_bytes) {
    *error = "'" + path + "' is " + std::to_string(file.size_) + " bytes; graft reads " +
             kind.noun + "s up to " + limit_text(kind.max_bytes);
    if (kind.advice != nullptr) *error += std::string(" (") + kind.advice + ")";
    return std::nullopt;
  }
  return file;
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), path_(std::move(other.path_)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    path_ = std::move(other.path_);
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool InputFile::read_at(uint64_t offset, void* out, size_t n, std::string* error) const {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = "cannot read '" + path_ + "': " + std::strerror(errno);
      return false;
    }
    if (got == 0) {
      *error = "cannot read '" + path_ + "': it ended early (was it changed while being read?)";
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

std::optional<std::string> InputFile::read_all(std::string* error) const {
  std::string text(static_cast<size_t>(size_), '\0');
  if (!read_at(0, text.data(), text.size(), error)) return std::nullopt;
  return text;
}

std::optional<std::string> read_input_file(const std::string& path, const InputFileKind& kind,
                                           std::string* error) {
  std::optional<InputFile> file = InputFile::open(path, kind, error);
  if (!file) return std::nullopt;
  return file->read_all(error);
}

}  // namespace graft
