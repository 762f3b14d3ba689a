#include "engine/support/atomic_file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "tests/testing/test_paths.h"

using namespace graft;

TEST_CASE("atomic writes replace the file and leave no temporaries", "[support]") {
  std::string dir = testing::make_temp_dir("atomic");
  std::string path = dir + "/out.json";
  testing::write_file(path, "old");
  std::string error;
  REQUIRE(write_file_atomically(path, "new contents", &error));
  CHECK(testing::read_file(path) == "new contents");
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("an atomic write creates missing parent directories", "[support]") {
  std::string dir = testing::make_temp_dir("atomic-mkdir");
  std::string error;
  REQUIRE(write_file_atomically(dir + "/missing/sub/out.json", "x", &error));
  CHECK(testing::read_file(dir + "/missing/sub/out.json") == "x");
}

TEST_CASE("a failed atomic write leaves the old file untouched", "[support]") {
  std::string dir = testing::make_temp_dir("atomic-fail");
  std::string error;
  REQUIRE(write_file_atomically(dir + "/blocker", "a file where a directory is wanted", &error));
  CHECK_FALSE(write_file_atomically(dir + "/blocker/sub/out.json", "x", &error));
  CHECK(error.find("cannot create the directory") != std::string::npos);
  CHECK_FALSE(write_file_atomically(dir, "x", &error));
  CHECK(error.find("is a directory") != std::string::npos);
}

TEST_CASE("an uncommitted file set removes its temporaries", "[support]") {
  std::string dir = testing::make_temp_dir("atomic-set");
  std::string error;
  {
    AtomicFileSet files;
    REQUIRE(files.stage(dir + "/a", "1", &error));
    REQUIRE(files.stage(dir + "/b", "2", &error));
  }
  CHECK(std::filesystem::is_empty(dir));
  AtomicFileSet files;
  REQUIRE(files.stage(dir + "/a", "1", &error));
  REQUIRE(files.stage(dir + "/b", "2", &error));
  REQUIRE(files.commit(&error));
  CHECK(testing::read_file(dir + "/a") == "1");
  CHECK(testing::read_file(dir + "/b") == "2");
}

TEST_CASE("an output that exists and is not a regular file is refused, and left as it is",
          "[support]") {
  // Every write renames a new file over its target: as root, `-o /dev/null` replaced the
  // device node with a regular file, and a FIFO was replaced the same way.
  std::string dir = testing::make_temp_dir("atomic-kinds");
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0644) == 0);
  std::filesystem::create_directory(dir + "/dir");
  testing::write_file(dir + "/file", "target");
  std::filesystem::create_symlink(dir + "/file", dir + "/link");
  struct Case {
    const char* name;
    const char* message;
  };
  std::vector<Case> cases = {{"fifo", "it is a FIFO, not a regular file"},
                             {"dir", "it is a directory"},
                             {"link", "it is a symbolic link"}};
  // A character device like /dev/null (its numbers), where this process may make one.
  if (::mknod((dir + "/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    cases.push_back({"null", "it is a character device, not a regular file"});
  }
  for (const Case& c : cases) {
    INFO(c.name);
    std::string path = dir + "/" + c.name;
    std::string error;
    CHECK_FALSE(check_output_path(path, &error));
    CHECK(error.rfind("cannot write '" + path + "': " + c.message, 0) == 0);
    CHECK_FALSE(write_file_atomically(path, "x", &error));
    AtomicFileSet files;
    CHECK_FALSE(files.begin(path, &error));
  }
  struct stat st {};
  CHECK((::stat((dir + "/fifo").c_str(), &st) == 0 && S_ISFIFO(st.st_mode)));
  CHECK(std::filesystem::is_symlink(dir + "/link"));
  CHECK(testing::read_file(dir + "/file") == "target");
  std::string error;
  CHECK(check_output_path(dir + "/file", &error));
  CHECK(check_output_path(dir + "/absent", &error));
}

TEST_CASE("a file staged piece by piece is committed under the name chosen at its end",
          "[support]") {
  std::string dir = testing::make_temp_dir("atomic-stream");
  std::string error;
  AtomicFileSet files;
  REQUIRE(files.begin(dir + "/out.json", &error));
  CHECK(files.last_temp().find("/.out.json.tmp.") != std::string::npos);
  REQUIRE(files.write("piece one, ", &error));
  REQUIRE(files.write("piece two", &error));
  REQUIRE(files.finish(&error, dir + "/out.json.named"));
  REQUIRE(files.stage(dir + "/out.json", "model", &error));
  REQUIRE(files.commit(&error));
  CHECK(testing::read_file(dir + "/out.json.named") == "piece one, piece two");
  CHECK(testing::read_file(dir + "/out.json") == "model");
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  CHECK(entries == 2);
}

namespace {

/// Runs `body` in a child process and returns its wait status. The child starts with the
/// default actions for the signals Catch2 handles, so that its death is reported as is.
template <typename Body>
int in_child(Body body) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, SIG_DFL);
    const rlimit no_core{0, 0};  // SIGQUIT's default action dumps core
    ::setrlimit(RLIMIT_CORE, &no_core);
    body();
    ::_exit(100);  // not reached by the bodies below
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

/// Stages a file in `dir` and checks that its temporary is there.
void stage_one(AtomicFileSet& files, const std::string& dir) {
  std::string error;
  if (!files.stage(dir + "/model.safetensors", "weights", &error)) ::_exit(101);
  if (std::filesystem::is_empty(dir)) ::_exit(102);
}

}  // namespace

TEST_CASE("staged temporaries are removed when the process is killed or exits", "[support]") {
  SECTION("killed by a signal: removed, and the process still dies of that signal") {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
      std::string dir = testing::make_temp_dir("atomic-signal");
      int status = in_child([&] {
        AtomicFileSet files;
        stage_one(files, dir);
        ::raise(sig);
      });
      INFO("signal " << sig);
      REQUIRE(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == sig);
      CHECK(std::filesystem::is_empty(dir));
    }
  }
  SECTION("exit() while staged: removed") {
    std::string dir = testing::make_temp_dir("atomic-exit");
    int status = in_child([&] {
      static AtomicFileSet* leaked = new AtomicFileSet;  // exit() runs no destructor of it
      stage_one(*leaked, dir);
      std::exit(3);
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);
    CHECK(std::filesystem::is_empty(dir));
  }
  SECTION("a signal the process ignores stays ignored") {
    std::string dir = testing::make_temp_dir("atomic-ignored");
    int status = in_child([&] {
      std::signal(SIGHUP, SIG_IGN);
      AtomicFileSet files;
      stage_one(files, dir);
      ::raise(SIGHUP);  // ignored: the run goes on and commits
      std::string error;
      if (!files.commit(&error)) ::_exit(103);
      ::_exit(0);
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(testing::read_file(dir + "/model.safetensors") == "weights");
  }
  SECTION("a forked child leaves its parent's temporaries alone") {
    std::string dir = testing::make_temp_dir("atomic-fork");
    int status = in_child([&] {
      AtomicFileSet files;
      stage_one(files, dir);
      std::fflush(nullptr);
      pid_t child = ::fork();
      if (child == 0) std::exit(0);  // inherits the registration, runs the exit hook
      int child_status = 0;
      if (child < 0 || ::waitpid(child, &child_status, 0) != child) ::_exit(104);
      ::_exit(std::filesystem::is_empty(dir) ? 105 : 0);  // still there after the child
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  SECTION("without the cleanup (_exit skips it), the temporary would stay") {
    std::string dir = testing::make_temp_dir("atomic-control");
    int status = in_child([&] {
      AtomicFileSet files;
      stage_one(files, dir);
      ::_exit(0);
    });
    REQUIRE(WIFEXITED(status));
    CHECK_FALSE(std::filesystem::is_empty(dir));
  }
}

TEST_CASE("a temporary's registration ends with its owner", "[support]") {
  std::string dir = testing::make_temp_dir("atomic-release");
  std::string path = dir + "/kept";
  testing::write_file(path, "x");
  int status = in_child([&] {
    { TempFileCleanup cleanup(path); }  // released: not removed at exit
    TempFileCleanup moved_from(path);
    TempFileCleanup owner = std::move(moved_from);
    owner.release();
    std::exit(0);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(std::filesystem::exists(path));
  status = in_child([&] {
    TempFileCleanup first(path);
    TempFileCleanup second = std::move(first);  // the registration moves with it
    std::exit(0);
  });
  REQUIRE(WIFEXITED(status));
  CHECK_FALSE(std::filesystem::exists(path));
}
