// FileConfinement: names checked as written, canonical paths compared by components, and the
// check of an opened descriptor that catches a folder swapped for a symlink between resolve()
// and open() (simulated by opening a file outside directly).
#include "engine/support/confined_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/testing/test_paths.h"

using graft::FileConfinement;
using graft::PathPolicy;
namespace fs = std::filesystem;

TEST_CASE("a path is within a root by whole components, not by prefix", "[support][confine]") {
  CHECK(FileConfinement::is_within("/a/b/c", "/a/b"));
  CHECK(FileConfinement::is_within("/a/b", "/a/b"));
  CHECK(FileConfinement::is_within("/a/b", "/a/b/"));
  CHECK(FileConfinement::is_within("/etc/passwd", "/"));
  CHECK_FALSE(FileConfinement::is_within("/a/bc", "/a/b"));
  CHECK_FALSE(FileConfinement::is_within("/a", "/a/b"));
}

TEST_CASE("names are checked as written before the file system is asked", "[support][confine]") {
  FileConfinement folder("/nonexistent/models", {}, "the model's folder");
  CHECK(folder.check_name("w.safetensors") == "");
  CHECK(folder.check_name("sub/w.safetensors") == "");
  CHECK(folder.check_name("..w") == "");  // a name that starts with dots is not '..'
  CHECK(folder.check_name("") == "the file name is empty");
  CHECK_THAT(folder.check_name("/etc/passwd"), Catch::StartsWith("'/etc/passwd' is an absolute"));
  CHECK_THAT(folder.check_name("a/../../b"), Catch::StartsWith("'a/../../b' leaves"));
  CHECK_THAT(folder.check_name(".."), Catch::StartsWith("'..' leaves"));
  CHECK_THAT(folder.check_name(std::string("w\0x", 3)),
             Catch::StartsWith("'w\\x00x' contains the control character \\x00"));
  CHECK_THAT(folder.check_name("w\x7f"), Catch::Contains("control character \\x7f"));
  // With an allowed root the real location decides, but control characters never pass.
  FileConfinement wider("/nonexistent/models", PathPolicy{{"/tmp"}}, "the model's folder");
  CHECK(wider.check_name("/etc/passwd") == "");
  CHECK(wider.check_name("../x") == "");
  CHECK_FALSE(wider.check_name("x\n").empty());
  std::string error;
  CHECK_FALSE(wider.resolve("/etc/passwd", &error));
  CHECK_THAT(error, Catch::EndsWith("and every --allow-path folder"));
}

TEST_CASE("an opened file outside the folders is refused, one inside accepted",
          "[support][confine]") {
  std::string root = graft::testing::make_temp_dir("confined_path");
  graft::testing::write_file(root + "/model/w.bin", "w");
  graft::testing::write_file(root + "/secret.bin", "s");
  FileConfinement folder(root + "/model", {}, "the model's folder");
  std::string error;
  std::optional<std::string> inside = folder.resolve("w.bin", &error);
  REQUIRE(inside);
  CHECK(*inside == fs::canonical(root + "/model/w.bin").string());

  int fd = ::open(inside->c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK(folder.check_opened(fd, *inside, &error));
  ::close(fd);
  // What open() finds when a folder of the checked path was replaced by a symlink out.
  fd = ::open((root + "/secret.bin").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK_FALSE(folder.check_opened(fd, *inside, &error));
  ::close(fd);
  CHECK_THAT(error, Catch::Contains("resolves to '" + fs::canonical(root + "/secret.bin").string() +
                                    "', outside the model's folder") &&
                        Catch::EndsWith("(it changed while being opened)"));
}
