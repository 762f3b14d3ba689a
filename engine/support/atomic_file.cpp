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

#include "engine/support/check.h"

namespace graft {
namespace {

std::string errno_message(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

std::string directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

/// What a file that is not a regular one is, for messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// fsyncs the directory holding `path` (best effort: some file systems refuse it).
void sync_directory_of(const std::string& path) {
  int fd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool check_output_path(const std::string& path, std::string* error) {
  struct stat st {};
  // lstat: a link is reported as itself; anything it cannot look at is left to the writer,
  // whose own error names the problem (a missing directory is created, for instance).
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return true;
  if (S_ISLNK(st.st_mode)) {
    *error = "cannot write '" + path + "': it is a symbolic link (an output is replaced by " +
             "renaming a new file over it, which would replace the link, not the file it " +
             "points to); give the file's own path";
  } else if (S_ISDIR(st.st_mode)) {
    *error = "cannot write '" + path + "': it is a directory";
  } else {
    *error = "cannot write '" + path + "': it is " + kind_of(st.st_mode) +
             ", not a regular file";
  }
  return false;
}

bool make_parent_directory(const std::string& path, std::string* error) {
  std::string dir = directory_of(path);
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) return true;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create the directory '" + dir + "' for '" + path + "': " + ec.message();
    return false;
  }
  return true;
}

bool write_file_atomically(const std::string& path, std::string_view contents,
                           std::string* error) {
  AtomicFileSet files;
  return files.stage(path, contents, error) && files.commit(error);
}

AtomicFileSet::~AtomicFileSet() {
  for (const Staged& s : staged_) {
    if (s.fd >= 0) ::close(s.fd);
    ::unlink(s.temp.c_str());
  }
}

bool AtomicFileSet::stage(const std::string& path, std::string_view contents,
                          std::string* error) {
  return begin(path, error) && write(contents, error) && finish(error);
}

bool AtomicFileSet::begin(const std::string& path, std::string* error) {
  if (open_) {
    *error = "cannot stage '" + path + "' while '" + staged_.back().path + "' is being written";
    return false;
  }
  if (!check_output_path(path, error) || !make_parent_directory(path, error)) return false;
  std::string dir = directory_of(path);
  Staged staged;
  staged.path = path;
  staged.temp = dir + "/." + std::filesystem::path(path).filename().string() + ".tmp.XXXXXX";
  staged.fd = TempFileCleanup::make_temp(staged.temp, &staged.cleanup);
  if (staged.fd < 0) {
    *error = errno_message("cannot create a temporary file for", path);
    return false;
  }
  staged_.push_back(std::move(staged));
  open_ = true;
  return true;
}

void AtomicFileSet::drop_last() {
  Staged& s = staged_.back();
  ::close(s.fd);
  ::unlink(s.temp.c_str());
  staged_.pop_back();
  open_ = false;
}

bool AtomicFileSet::write(std::string_view bytes, std::string* error) {
  GRAFT_CHECK(open_) << "AtomicFileSet::write without begin()";
  int fd = staged_.back().fd;
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = errno_message("cannot write", staged_.back().temp);
      drop_last();
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool AtomicFileSet::finish(std::string* error, const std::string& path) {
  GRAFT_CHECK(open_) << "AtomicFileSet::finish without begin()";
  Staged& s = staged_.back();
  if (!path.empty()) s.path = path;
  // Temporaries get the permissions a plain create would have given (mkstemp uses 0600).
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(s.fd, 0666 & ~mask);
  if (::fsync(s.fd) != 0) {
    *error = errno_message("cannot flush", s.temp);
    drop_last();
    return false;
  }
  int fd = s.fd;
  s.fd = -1;
  open_ = false;
  if (::close(fd) != 0) {
    *error = errno_message("cannot flush", s.temp);
    ::unlink(s.temp.c_str());
    staged_.pop_back();
    return false;
  }
  return true;
}

bool AtomicFileSet::commit(std::string* error) {
  GRAFT_CHECK(!open_) << "AtomicFileSet::commit while a file is being written";
  for (size_t i = 0; i < staged_.size(); ++i) {
    // Checked again: the target may have been replaced since it was staged.
    bool ok = check_output_path(staged_[i].path, error);
    if (ok && std::rename(staged_[i].temp.c_str(), staged_[i].path.c_str()) != 0) {
      *error = errno_message("cannot rename into", staged_[i].path);
      ok = false;
    }
    if (!ok) {
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
