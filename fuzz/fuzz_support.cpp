// See fuzz_support.h.
#include "fuzz/fuzz_support.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace graft::fuzz {

std::string source_path(const std::string& relative) {
  return std::string(GRAFT_SOURCE_DIR) + "/" + relative;
}

std::string read_source_file(const std::string& relative) {
  std::string path = source_path(relative);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("fuzz harness set-up", "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::map<std::string, std::string>& std_rule_files() {
  static const std::map<std::string, std::string> files = [] {
    // Every file of the library, so that std.rules' imports resolve whatever it imports.
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(source_path("rules"), ec)) {
      std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".rules") out[name] = read_source_file("rules/" + name);
    }
    if (ec || !out.count("std.rules")) fail("fuzz harness set-up", "cannot list rules/ in the source tree");
    return out;
  }();
  return files;
}

namespace {

/// Removes the scratch directories of processes that are gone: a finding aborts, and then the
/// atexit handler below never runs. Names are "graft-fuzz-<pid>-XXXXXX".
void remove_stale_scratch_dirs(const std::filesystem::path& tmp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("graft-fuzz-", 0) != 0) continue;
    long pid = std::strtol(name.c_str() + 11, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove_all(entry.path(), ec);
    }
  }
}

}  // namespace

const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::filesystem::path tmp = std::filesystem::temp_directory_path();
    remove_stale_scratch_dirs(tmp);
    std::string tmpl =
        (tmp / ("graft-fuzz-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) fail("fuzz harness set-up", "mkdtemp failed");
    // libFuzzer's -jobs workers are processes of their own, each with its own directory.
    static std::string to_remove = tmpl;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(to_remove, ec);
    });
    return tmpl;
  }();
  return dir;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) fail("fuzz harness set-up", "cannot write " + path);
}

const std::string& example_weights_dir() {
  static const std::string dir = [] {
    const std::string& d = scratch_dir();
    write_file(d + "/model.safetensors",
               read_source_file("examples/models/tiny_cnn/model.safetensors"));
    return d;
  }();
  return dir;
}

std::vector<std::string_view> split_parts(const uint8_t* data, size_t size, size_t max_parts) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    size_t nul = rest.find('\0');
    if (nul == std::string_view::npos) break;
    parts.push_back(rest.substr(0, nul));
    rest.remove_prefix(nul + 1);
  }
  parts.push_back(rest);
  return parts;
}

void fail(const std::string& what, const std::string& detail) {
  std::cerr << "\n==== graft fuzz finding: " << what << "\n" << detail << "\n";
  std::cerr.flush();
  std::abort();
}

}  // namespace graft::fuzz
