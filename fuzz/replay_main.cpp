// A main for the fuzz targets outside libFuzzer: runs LLVMFuzzerTestOneInput on every file
// given, and on every file (recursively, in name order) of every directory given. The replay
// binaries of tests/fuzz_regressions use it to run the fixed crashes and the seeds as ordinary
// tests, in the gcc Release and ASan + UBSan builds; a finding still aborts. Fails when a path
// does not exist or nothing at all was run, so a test cannot pass by replaying nothing.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

void replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string data = bytes.str();
  std::cout << "replay " << file.string() << " (" << data.size() << " bytes)" << std::endl;
  // An exactly-sized heap copy, as libFuzzer passes it, so ASan sees reads past the end.
  std::vector<uint8_t> copy(data.begin(), data.end());
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path path(argv[i]);
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      replay(path);
      ++count;
      continue;
    }
    if (!fs::is_directory(path, ec)) {
      std::cerr << "replay: error: '" << path.string() << "' is neither a file nor a directory\n";
      return 1;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) replay(file);
    count += files.size();
  }
  if (count == 0) {
    std::cerr << "replay: error: no inputs (give files or directories holding some)\n";
    return 1;
  }
  std::cout << "replay: " << count << " input" << (count == 1 ? "" : "s") << ", no finding\n";
  return 0;
}
