// temp + fsync + rename, the way ninja rewrites .ninja_log.
#include "engine/support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

namespace graft {
namespace {

std::string errno_message(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

/// Creates a unique temporary next to `path` and writes `contents` to it with fsync. From its
/// creation on, `*cleanup` removes it should the process be killed or exit meanwhile.
bool write_temp(const std::string& path, std::string_view contents, std::string* temp_out,
                TempFileCleanup* cleanup, std::string* error) {
  std::filesystem::path target(path);
  std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  // `rewrite … -o out/model.json` on a fresh checkout: make the directory, as `mkdir -p` would.
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      *error = "cannot create the directory '" + dir + "' for '" + path + "': " + ec.message();
      return false;
    }
  }
  std::string temp = dir + "/." + target.filename().string() + ".tmp.XXXXXX";
  int fd = TempFileCleanup::make_temp(temp, cleanup);
  if (fd < 0) {
    *error = errno_message("cannot create a temporary file for", path);
    return false;
  }
  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = errno_message("cannot write", temp);
      ::close(fd);
      ::unlink(temp.c_str());
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  // Temporaries get the permissions a plain create would have given (mkstemp uses 0600).
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    *error = errno_message("cannot flush", temp);
    ::unlink(temp.c_str());
    return false;
  }
  *temp_out = temp;
  return true;
}

/// fsyncs the directory holding `path` (best effort: some file systems refuse it).
void sync_directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool write_file_atomically(const std::string& path, std::string_view contents,
                           std::string* error) {
  AtomicFileSet files;
  return files.stage(path, contents, error) && files.commit(error);
}

AtomicFileSet::~AtomicFileSet() {
  for (const Staged& s : staged_) ::unlink(s.temp.c_str());
}

bool AtomicFileSet::stage(const std::string& path, std::string_view contents,
                          std::string* error) {
  if (std::filesystem::is_directory(path)) {
    *error = "cannot write '" + path + "': it is a directory";
    return false;
  }
  Staged staged;
  if (!write_temp(path, contents, &staged.temp, &staged.cleanup, error)) return false;
  staged.path = path;
  staged_.push_back(std::move(staged));
  return true;
}

bool AtomicFileSet::commit(std::string* error) {
  for (size_t i = 0; i < staged_.size(); ++i) {
    if (std::rename(staged_[i].temp.c_str(), staged_[i].path.c_str()) != 0) {
      *error = errno_message("cannot rename into", staged_[i].path);
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<long>(i));
      return false;
    }
    staged_[i].cleanup.release();  // the temporary's name is gone
    // The rename is atomic for readers at once; syncing the directory makes it survive a
    // power cut too, before the next file (the commit point, model.json) is renamed.
    sync_directory_of(staged_[i].path);
  }
  staged_.clear();
  return true;
}

}  // namespace graft
