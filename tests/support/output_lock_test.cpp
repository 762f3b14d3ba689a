// The lock of an output (one writer at a time) and its record of what a writer was creating.
#include "engine/support/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

/// Whether another process could take the lock of `lock_file` now, without waiting.
bool free_for_another_process(const std::string& lock_file) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int fd = ::open(lock_file.c_str(), O_RDWR | O_CLOEXEC);
    ::_exit(fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("an output's lock is held by one process at a time", "[support][output_lock]") {
  std::string dir = testing::make_temp_dir("output-lock");
  std::string error;
  std::optional<OutputLock> lock = OutputLock::acquire(dir + "/sub/out.json", &error);
  INFO(error);
  REQUIRE(lock);
  CHECK(lock->path() == dir + "/sub/.out.json.lock");
  CHECK(lock->left_behind().empty());
  CHECK_FALSE(free_for_another_process(lock->path()));
  lock.reset();  // released, the file stays
  CHECK(free_for_another_process(dir + "/sub/.out.json.lock"));
}

TEST_CASE("a writer that does not finish leaves its record to the next one",
          "[support][output_lock]") {
  std::string dir = testing::make_temp_dir("output-lock-record");
  std::string error;
  {
    std::optional<OutputLock> lock = OutputLock::acquire(dir + "/out.json", &error);
    REQUIRE(lock);
    REQUIRE(lock->record({"a.safetensors", ".out.json.tmp.123456", "a longer name"}, &error));
    REQUIRE(lock->record({"a.safetensors", "b"}, &error));  // replaces the record
  }
  std::optional<OutputLock> next = OutputLock::acquire(dir + "/out.json", &error);
  REQUIRE(next);
  CHECK(next->left_behind() == std::vector<std::string>{"a.safetensors", "b"});
  next->release();  // finished: the lock file goes
  CHECK(std::filesystem::is_empty(dir));
  std::optional<OutputLock> fresh = OutputLock::acquire(dir + "/out.json", &error);
  REQUIRE(fresh);
  CHECK(fresh->left_behind().empty());
}

TEST_CASE("a lock file that is not a regular file is refused", "[support][output_lock]") {
  std::string dir = testing::make_temp_dir("output-lock-odd");
  REQUIRE(::mkfifo((dir + "/.out.json.lock").c_str(), 0644) == 0);
  std::filesystem::create_symlink(dir + "/elsewhere", dir + "/.link.json.lock");
  std::string error;
  CHECK_FALSE(OutputLock::acquire(dir + "/out.json", &error));
  CHECK(error == "cannot lock '" + dir + "/.out.json.lock': it is not a regular file");
  CHECK_FALSE(OutputLock::acquire(dir + "/link.json", &error));
  CHECK(error.rfind("cannot create the lock file '" + dir + "/.link.json.lock'", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(dir + "/elsewhere"));
}
