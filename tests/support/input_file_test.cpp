#include "engine/support/input_file.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

const InputFileKind kRuleFile{"rule file", 16, "keep rules short"};

}  // namespace

TEST_CASE("an input file is read whole when it is a regular file within its limit",
          "[support][input_file]") {
  std::string dir = testing::make_temp_dir("input-file");
  testing::write_file(dir + "/a.rules", "0123456789abcdef");  // exactly the limit
  std::string error;
  std::optional<std::string> text = read_input_file(dir + "/a.rules", kRuleFile, &error);
  REQUIRE(text);
  CHECK(*text == "0123456789abcdef");
  testing::write_file(dir + "/empty.rules", "");
  CHECK(read_input_file(dir + "/empty.rules", kRuleFile, &error) == "");
}

TEST_CASE("an input file above its limit is refused before it is read", "[support][input_file]") {
  std::string dir = testing::make_temp_dir("input-file-big");
  testing::write_file(dir + "/a.rules", "0123456789abcdefg");
  std::string error;
  CHECK_FALSE(read_input_file(dir + "/a.rules", kRuleFile, &error));
  CHECK(error == "'" + dir + "/a.rules' is 17 bytes; graft reads rule files up to 16 bytes " +
                     "(keep rules short)");
  // A sparse file: nothing is read, so refusing it costs no time or memory.
  std::filesystem::resize_file(dir + "/a.rules", uint64_t{1} << 40);
  CHECK_FALSE(read_input_file(dir + "/a.rules", {"model.json file", uint64_t{1} << 30}, &error));
  CHECK(error == "'" + dir + "/a.rules' is 1099511627776 bytes; graft reads model.json files " +
                     "up to 1024 MiB");
}

TEST_CASE("devices, FIFOs and directories are refused without reading or blocking",
          "[support][input_file]") {
  std::string error;
  CHECK_FALSE(read_input_file("/dev/zero", kRuleFile, &error));
  CHECK(error == "'/dev/zero' is not a regular file (it is a character device)");

  std::string dir = testing::make_temp_dir("input-file-odd");
  // A FIFO with no writer: a blocking open() would wait forever.
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  CHECK_FALSE(read_input_file(dir + "/fifo", kRuleFile, &error));
  CHECK(error == "'" + dir + "/fifo' is not a regular file (it is a FIFO)");
  // Through a symlink, too: the check is on what was opened.
  std::filesystem::create_symlink(dir + "/fifo", dir + "/link.rules");
  CHECK_FALSE(read_input_file(dir + "/link.rules", kRuleFile, &error));
  CHECK(error == "'" + dir + "/link.rules' is not a regular file (it is a FIFO)");

  std::filesystem::create_directory(dir + "/d.rules");
  CHECK_FALSE(read_input_file(dir + "/d.rules", kRuleFile, &error));
  CHECK(error == "'" + dir + "/d.rules' is a directory, not a rule file");

  CHECK_FALSE(read_input_file(dir + "/missing", kRuleFile, &error));
  CHECK(error == "cannot open '" + dir + "/missing': No such file or directory");
}

TEST_CASE("an input file reads ranges and reports one past its end", "[support][input_file]") {
  std::string dir = testing::make_temp_dir("input-file-range");
  testing::write_file(dir + "/f", "0123456789");
  std::string error;
  std::optional<InputFile> file = InputFile::open(dir + "/f", kRuleFile, &error);
  REQUIRE(file);
  CHECK(file->size() == 10);
  char buffer[4] = {};
  REQUIRE(file->read_at(6, buffer, 4, &error));
  CHECK(std::string(buffer, 4) == "6789");
  CHECK_FALSE(file->read_at(8, buffer, 4, &error));
  CHECK(error == "cannot read '" + dir + "/f': it ended early (was it changed while being read?)");
  // A file that grows after opening is read as it was: no more than size() bytes.
  testing::write_file(dir + "/f", "0123456789 and much more");
  CHECK(file->read_all(&error) == "0123456789");
}
