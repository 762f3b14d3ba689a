// Atomic output files: write to a temporary file in the target's directory, fsync, rename.
// A failed or killed run leaves either the old file or the new one, never a torn file, and
// (temp_file_cleanup.h) no temporary unless it was killed by SIGKILL or crashed. An output
// that exists must be a regular file: renaming over a device, FIFO or socket would replace
// the node itself, and over a symbolic link the link rather than the file it points to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/support/temp_file_cleanup.h"

namespace graft {

/// Whether `path` may be written as an output: true if it does not exist or is a regular file.
/// Otherwise sets `error` to "cannot write 'PATH': it is a FIFO, not a regular file" (or a
/// directory, a device, a socket, a symbolic link).
[[nodiscard]] bool check_output_path(const std::string& path, std::string* error);

/// Creates the directory `path` is to be written in, with its parents, as `mkdir -p` would
/// (`rewrite … -o out/model.json` on a fresh checkout). False and `error` set on failure.
[[nodiscard]] bool make_parent_directory(const std::string& path, std::string* error);

/// Writes `contents` to `path` atomically. Returns false and sets `error` on failure; the
/// temporary file is removed and `path` is untouched.
[[nodiscard]] bool write_file_atomically(const std::string& path, std::string_view contents,
                                         std::string* error);

/// A set of files committed together: each is written to a temporary first, and only when all
/// temporaries are complete are they renamed into place (model.json last, so a reader never
/// sees a model whose weights are missing).
class AtomicFileSet {
 public:
  AtomicFileSet() = default;
  AtomicFileSet(const AtomicFileSet&) = delete;
  AtomicFileSet& operator=(const AtomicFileSet&) = delete;
  ~AtomicFileSet();  // removes temporaries that were never committed

  /// Stages `contents` for `path`. Returns false and sets `error` on failure.
  [[nodiscard]] bool stage(const std::string& path, std::string_view contents, std::string* error);

  /// Stages a file written piece by piece, whose name may be chosen once its contents are
  /// known (a file named after its hash): begin() creates the temporary beside `path`, write()
  /// appends, finish() completes it. One such file is open at a time; on failure it is
  /// removed and the others stay staged.
  [[nodiscard]] bool begin(const std::string& path, std::string* error);
  [[nodiscard]] bool write(std::string_view bytes, std::string* error);
  /// fsyncs the open file, to be committed as `path` (in begin()'s directory; "" keeps
  /// begin()'s path).
  [[nodiscard]] bool finish(std::string* error, const std::string& path = "");
  /// The temporary of the file staged or begun last ("" before any).
  std::string last_temp() const { return staged_.empty() ? "" : staged_.back().temp; }

  /// Renames every staged file into place, in staging order.
  [[nodiscard]] bool commit(std::string* error);

 private:
  struct Staged {
    std::string temp;
    std::string path;
    TempFileCleanup cleanup;  // removes `temp` if the process is killed before commit
    int fd = -1;              // open while the file is being written
  };
  void drop_last();  // closes and removes the file being written
  bool open_ = false;
  std::vector<Staged> staged_;
};

}  // namespace graft
