// Test path helpers.
#include "tests/testing/test_paths.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace graft::testing {

std::string source_path(const std::string& relative) {
  return std::string(GRAFT_SOURCE_DIR) + "/" + relative;
}

std::string make_temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  std::filesystem::path dir = std::filesystem::path(GRAFT_BINARY_DIR) / "test-tmp" /
                              (tag + "-" + std::to_string(::getpid()) + "-" +
                               std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const std::string& path, const std::string& contents) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

}  // namespace graft::testing
