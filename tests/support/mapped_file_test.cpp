#include "engine/support/mapped_file.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

const InputFileKind kAnyFile{"file", uint64_t{1} << 30};

MappedFile map_or_fail(const std::string& path) {
  std::string error;
  std::optional<InputFile> file = InputFile::open(path, kAnyFile, &error);
  REQUIRE(file);
  std::optional<MappedFile> mapped = MappedFile::map(*file, &error);
  REQUIRE(mapped);
  return std::move(*mapped);
}

}  // namespace

TEST_CASE("a mapped file reads as the file, also after its pages are handed back",
          "[support][mapped_file]") {
  std::string dir = testing::make_temp_dir("mapped-file");
  std::string text;
  for (size_t i = 0; text.size() < 3 * MappedFile::kReleaseStep; ++i) {
    text += std::to_string(i * 7919) + "\n";
  }
  testing::write_file(dir + "/big.json", text);
  MappedFile mapped = map_or_fail(dir + "/big.json");
  REQUIRE(mapped.text() == text);
  mapped.release_before(MappedFile::kReleaseStep / 2);  // too little to hand back
  mapped.release_before(2 * MappedFile::kReleaseStep + 123);
  mapped.release_before(text.size());
  CHECK(mapped.text() == text);  // read again from the file

  testing::write_file(dir + "/empty.json", "");
  MappedFile empty = map_or_fail(dir + "/empty.json");
  CHECK(empty.data() == nullptr);
  CHECK(empty.size() == 0);
  CHECK(empty.text().empty());
}

TEST_CASE("reading a mapped file that shrank exits with a message, not a crash",
          "[support][mapped_file]") {
  std::string dir = testing::make_temp_dir("mapped-file-shrinks");
  std::string path = dir + "/model.json";
  testing::write_file(path, std::string(64 * 1024, 'x'));
  int err[2];
  REQUIRE(::pipe(err) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(err[1], STDERR_FILENO);
    std::string error;
    std::optional<InputFile> file = InputFile::open(path, kAnyFile, &error);
    std::optional<MappedFile> mapped = file ? MappedFile::map(*file, &error) : std::nullopt;
    if (!mapped) ::_exit(2);
    std::filesystem::resize_file(path, 0);
    volatile char c = mapped->text()[40000];  // past the new end: SIGBUS
    ::_exit(c == 'x' ? 3 : 4);
  }
  ::close(err[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;) said.append(buf, n);
  ::close(err[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(said == "error: '" + path +
                    "' changed while graft was reading it (it is shorter now); nothing was "
                    "written\n");
}
