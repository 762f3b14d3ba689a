// What the fuzz targets share: paths into the source tree (rules/, examples/), a private
// scratch directory, the split of one fuzz input into several files, and the one way a
// harness reports a finding that is not a crash (an abort, which libFuzzer records).
// Built into both the libFuzzer binaries and the replay binaries (fuzz/replay_main.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace graft::fuzz {

/// Absolute path of `relative` inside the source tree.
std::string source_path(const std::string& relative);
/// The bytes of a source-tree file; aborts when it cannot be read (a broken checkout, not a
/// finding).
std::string read_source_file(const std::string& relative);
/// The standard rule library, file name -> text ("std.rules", "cleanup.rules", …).
const std::map<std::string, std::string>& std_rule_files();

/// A directory of this process's own, created on first use and removed at exit (or, after an
/// abort, by the next harness process that starts).
const std::string& scratch_dir();
/// Writes `bytes` to `path`; aborts on failure (harness set-up).
void write_file(const std::string& path, const std::string& bytes);
/// The scratch directory with tiny_cnn's weights in it as model.safetensors: where fuzzed
/// model.json text resolves "weights", so the example model's seed loads whole.
const std::string& example_weights_dir();

/// Splits a fuzz input at NUL bytes into at most `max_parts` parts (the last one keeps any
/// further NULs), so one input can describe several files.
std::vector<std::string_view> split_parts(const uint8_t* data, size_t size, size_t max_parts);

/// Reports a broken invariant (a finding that is not a crash) with `detail`, then aborts.
[[noreturn]] void fail(const std::string& what, const std::string& detail);

}  // namespace graft::fuzz
