// safetensors files that are valid JSON but hostile in size: the header length limit, the
// memory a large header takes while it is read, FIFOs and devices, and the ambiguities a
// streamed header must decide (repeated names and keys).
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <new>

#include "engine/io/safetensors.h"
#include "tests/testing/test_paths.h"

using namespace graft;

namespace {

/// An 8-byte little-endian length, then `header`.
std::string with_length(const std::string& header) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  return out + header;
}

std::string errors_of(const std::string& bytes) {
  auto owner = std::make_shared<const std::string>(bytes);
  DiagnosticEngine diags;
  std::optional<SafetensorsFile> file =
      parse_safetensors(reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner,
                        "w.safetensors", diags);
  CHECK_FALSE(file.has_value());
  return diags.render();
}

/// A header of `count` empty float32 tensors: the most entries per header byte.
std::string empty_tensors(size_t count) {
  std::string header = "{";
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) header += ',';
    header += "\"t" + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
  }
  return with_length(header + "}");
}

/// The process's virtual memory size, in bytes.
size_t virtual_memory_bytes() {
  unsigned long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_CASE("a safetensors header above 100 MB is refused before it is parsed",
          "[engine][safetensors]") {
  // A sparse file: the length prefix declares 100 000 001 bytes of header, all zeros.
  std::string path = testing::make_temp_dir("safetensors-long-header") + "/w.safetensors";
  std::string prefix(8, '\0');
  uint64_t length = 100'000'001;
  for (int i = 0; i < 8; ++i) prefix[static_cast<size_t>(i)] = static_cast<char>(length >> (8 * i));
  testing::write_file(path, prefix);
  std::filesystem::resize_file(path, 8 + length);
  DiagnosticEngine diags;
  CHECK_FALSE(read_safetensors(path, diags).has_value());
  CHECK(diags.render() == path + ": error: header length 100000001 exceeds the limit of 100000000 "
                                 "bytes (as in the reference implementation; real headers take "
                                 "a few hundred bytes per tensor)\n");
}

TEST_CASE("reading a safetensors header takes a few bytes of memory per header byte",
          "[engine][safetensors]") {
#ifdef __SANITIZE_ADDRESS__
  WARN("skipped: AddressSanitizer reserves terabytes of address space, so RLIMIT_AS cannot "
       "bound this process");
  return;
#endif
  // 16 MB of header, 270 000 tensors. A document tree of it takes over ten bytes per header
  // byte; the reader may use six.
  const std::string bytes = empty_tensors(270'000);
  const size_t header_bytes = bytes.size();
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const rlimit limit{virtual_memory_bytes() + 6 * header_bytes,
                       virtual_memory_bytes() + 6 * header_bytes};
    ::setrlimit(RLIMIT_AS, &limit);
    try {
      DiagnosticEngine diags;
      std::optional<SafetensorsFile> file =
          parse_safetensors(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(),
                            nullptr, "w.safetensors", diags);
      ::_exit(file && file->tensors.size() == 270'000 ? 0 : 1);
    } catch (const std::bad_alloc&) {
      ::_exit(2);
    }
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 2: out of memory
}

TEST_CASE("read_safetensors refuses FIFOs and devices without blocking", "[engine][safetensors]") {
  std::string fifo = testing::make_temp_dir("safetensors-fifo") + "/w.safetensors";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  DiagnosticEngine diags;
  CHECK_FALSE(read_safetensors(fifo, diags).has_value());
  CHECK(diags.render() == fifo + ": error: '" + fifo + "' is not a regular file (it is a FIFO)\n");
  DiagnosticEngine zero;
  CHECK_FALSE(read_safetensors("/dev/zero", zero).has_value());
  CHECK(zero.render() ==
        "/dev/zero: error: '/dev/zero' is not a regular file (it is a character device)\n");
}

TEST_CASE("a safetensors header may not name a tensor, key or metadata entry twice",
          "[engine][safetensors]") {
  const std::string entry = R"({"dtype":"F32","shape":[0],"data_offsets":[0,0]})";
  CHECK(errors_of(with_length(R"({"w":)" + entry + R"(,"w":)" + entry + "}")) ==
        "w.safetensors: /w: error: tensor 'w' appears more than once in the header\n");
  CHECK(errors_of(with_length(R"({"w":{"dtype":"F32","shape":[0],"dtype":"F64",)"
                              R"("data_offsets":[0,0]}})")) ==
        "w.safetensors: /w/dtype: error: key 'dtype' appears more than once in tensor 'w'\n");
  CHECK(errors_of(with_length(R"({"__metadata__":{"k":"a","k":"b"}})")) ==
        "w.safetensors: /__metadata__/k: error: __metadata__ key 'k' appears more than once\n");
  CHECK(errors_of(with_length(R"({"__metadata__":{},"__metadata__":{}})")) ==
        "w.safetensors: /__metadata__: error: __metadata__ appears more than once\n");
}

TEST_CASE("a safetensors shape may have at most 64 dims", "[engine][safetensors]") {
  std::string dims = "1";
  for (int i = 1; i < 65; ++i) dims += ",1";
  CHECK(errors_of(with_length(R"({"w":{"dtype":"F32","shape":[)" + dims +
                              R"(],"data_offsets":[0,0]}})")) ==
        "w.safetensors: /w/shape: error: shape has 65 dims; graft reads tensors of at most 64\n");
}
