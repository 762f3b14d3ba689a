// One writer at a time per output, and a record of what it is about to create. The lock is
// flock(2) on a hidden file beside the output (".out.json.lock" for out.json), so writers of
// the same output from any number of processes take turns; it is released when its holder
// ends, however it ends. The lock file also holds the writer's record: the names of the files
// it is about to create, so that the next writer can remove what a killed one left behind.
// A writer that finishes removes the lock file; one killed leaves it, with its record.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace graft {

class OutputLock {
 public:
  /// Waits until no other process holds the lock of `output`, then takes it. Creates the
  /// output's directory if needed. Returns nullopt and sets `error` if the lock file cannot
  /// be created or locked (or is not a regular file).
  static std::optional<OutputLock> acquire(const std::string& output, std::string* error);

  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&&) = delete;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  /// Releases the lock; the lock file stays, with its record, unless release() was called.
  ~OutputLock();

  /// The record a writer that did not finish left: file names in the output's directory.
  const std::vector<std::string>& left_behind() const { return left_behind_; }
  /// Replaces the record with `names` and flushes it to disk: call before creating them.
  [[nodiscard]] bool record(const std::vector<std::string>& names, std::string* error);
  /// Removes the lock file and releases the lock: for a writer whose recorded files are all
  /// dealt with (committed or removed).
  void release();

  const std::string& path() const { return path_; }

 private:
  OutputLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  bool read_record(std::string* error);

  std::string path_;  // the lock file
  int fd_ = -1;
  std::vector<std::string> left_behind_;
};

}  // namespace graft
