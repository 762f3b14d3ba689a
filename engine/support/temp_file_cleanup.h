// Removing temporary files when the process dies before their owner can.
//
// AtomicFileSet writes each output to a hidden temporary next to it
// (".model.safetensors.tmp.AbC123", hundreds of megabytes for a model's weights) and removes it
// on every error path. A run stopped by Ctrl-C, `kill` or a closed terminal, or one that calls
// exit() while files are staged, skips those destructors, and the temporary would stay behind.
// As git's tempfile.c does for its lock files, the paths of live temporaries are kept in a
// table that a signal handler and an exit hook can read without allocating or locking, and
// are removed there; the handler then lets the signal do what it would have done.
//
// Covered: SIGINT, SIGTERM, SIGHUP, SIGQUIT (a signal the process ignores stays ignored, so
// `nohup` works), exit() and returning from main. Not covered: SIGKILL, a crash, a power cut —
// the target itself is never torn in any case (atomic rename). A forked child inherits the
// table but removes only the files its own process registered.
#pragma once

#include <string>

namespace graft {

/// Removes the registered temporaries of this process now; safe in a signal handler, for one
/// that ends the process with _exit() (mapped_file.cpp's).
void remove_temp_files_now();

/// While alive, `path` is removed if the process is ended by one of the signals above or exits
/// first. The owner still removes or renames the file itself; the registration only covers the
/// owner not getting the chance. At most a few dozen are registered at a time (a file beyond
/// that is simply not covered).
class TempFileCleanup {
 public:
  TempFileCleanup() = default;
  explicit TempFileCleanup(const std::string& path);
  ~TempFileCleanup() { release(); }
  TempFileCleanup(TempFileCleanup&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  TempFileCleanup& operator=(TempFileCleanup&& other) noexcept;
  TempFileCleanup(const TempFileCleanup&) = delete;
  TempFileCleanup& operator=(const TempFileCleanup&) = delete;

  /// mkstemp(path_template) with the new file registered in `*cleanup` before any of the
  /// signals above can be handled: they are blocked from before the file exists until it is
  /// registered. Returns mkstemp's result (errno set on failure).
  static int make_temp(std::string& path_template, TempFileCleanup* cleanup);

  /// Ends the registration (the file is left as it is): call once it is renamed or removed.
  void release();
  /// True if the path is registered (false when the table was full or the path too long).
  bool registered() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

}  // namespace graft
