// flock on ".NAME.lock", with the usual guard for lock files that are removed after use: a
// waiter may get the lock of a file its holder has just removed, so after locking it checks
// that the path still names the file it holds, and starts over otherwise.
#include "engine/support/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/support/atomic_file.h"

namespace graft {
namespace {

constexpr size_t kMaxRecord = 64 * 1024;  // a record names a handful of files

std::string errno_message(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

std::string lock_path_of(const std::string& output) {
  std::filesystem::path p(output);
  std::string name = "." + p.filename().string() + ".lock";
  return p.parent_path().empty() ? name : (p.parent_path() / name).string();
}

/// Opens (creating) and locks `path`; -1 with `error` set on failure, -2 when the file was
/// removed or replaced while this process waited (try again).
int lock_once(const std::string& path, std::string* error) {
  // O_NOFOLLOW and O_NONBLOCK: a link or FIFO put there is refused below instead of followed
  // or waited on.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
  if (fd < 0) {
    *error = errno_message("cannot create the lock file", path);
    return -1;
  }
  struct stat held {};
  if (::fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
    *error = "cannot lock '" + path + "': it is not a regular file";
    ::close(fd);
    return -1;
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    *error = errno_message("cannot lock", path);
    ::close(fd);
    return -1;
  }
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0 || now.st_dev != held.st_dev || now.st_ino != held.st_ino) {
    ::close(fd);
    return -2;
  }
  return fd;
}

}  // namespace

std::optional<OutputLock> OutputLock::acquire(const std::string& output, std::string* error) {
  if (!make_parent_directory(output, error)) return std::nullopt;
  std::string path = lock_path_of(output);
  int fd = -2;
  while (fd == -2) fd = lock_once(path, error);
  if (fd < 0) return std::nullopt;
  OutputLock lock(path, fd);
  if (!lock.read_record(error)) return std::nullopt;
  return lock;
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), left_behind_(std::move(other.left_behind_)) {
  other.fd_ = -1;
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

bool OutputLock::read_record(std::string* error) {
  std::string text(kMaxRecord, '\0');
  ssize_t n = ::pread(fd_, text.data(), text.size(), 0);
  if (n < 0) {
    *error = errno_message("cannot read the lock file", path_);
    return false;
  }
  text.resize(static_cast<size_t>(n));
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // a line cut short by a kill is not a name
    if (end > start) left_behind_.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return true;
}

bool OutputLock::record(const std::vector<std::string>& names, std::string* error) {
  std::string text;
  for (const std::string& name : names) text += name + "\n";
  const char* p = text.data();
  size_t left = text.size();
  off_t at = 0;
  while (left > 0) {
    ssize_t n = ::pwrite(fd_, p, left, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = errno_message("cannot write the lock file", path_);
      return false;
    }
    p += n;
    at += n;
    left -= static_cast<size_t>(n);
  }
  if (::ftruncate(fd_, static_cast<off_t>(text.size())) != 0 || ::fsync(fd_) != 0) {
    *error = errno_message("cannot write the lock file", path_);
    return false;
  }
  return true;
}

void OutputLock::release() {
  if (fd_ < 0) return;
  // Removed while still held: a process waiting on this file notices and starts over.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace graft
