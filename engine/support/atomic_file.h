// Atomic output files: write to a temporary file in the target's directory, fsync, rename.
// A failed or killed run leaves either the old file or the new one, never a torn file, and
// (temp_file_cleanup.h) no temporary unless it was killed by SIGKILL or crashed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/support/temp_file_cleanup.h"

namespace graft {

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
  /// Renames every staged file into place, in staging order.
  [[nodiscard]] bool commit(std::string* error);

 private:
  struct Staged {
    std::string temp;
    std::string path;
    TempFileCleanup cleanup;  // removes `temp` if the process is killed before commit
  };
  std::vector<Staged> staged_;
};

}  // namespace graft
