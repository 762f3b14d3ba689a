// Paths tests need: the source tree (examples, rules, golden files) and a scratch directory.
#pragma once

#include <string>

namespace graft::testing {

/// Absolute path of `relative` inside the source tree.
std::string source_path(const std::string& relative);
/// A fresh, empty directory under the build tree for this test's files.
std::string make_temp_dir(const std::string& tag);
/// The contents of a file ("" if it cannot be read).
std::string read_file(const std::string& path);
/// Writes a file (creating parent directories); for preparing test inputs.
void write_file(const std::string& path, const std::string& contents);

}  // namespace graft::testing
