#include "engine/support/atomic_file.h"

#include <catch2/catch.hpp>
#include <filesystem>

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
