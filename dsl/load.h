// The public entry point of graft::dsl: load .rules files with their imports, parse them and
// check them as one rule set.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dsl/rule_file_set.h"
#include "engine/support/confined_path.h"
#include "engine/support/diagnostics.h"
#include "engine/support/source_manager.h"

namespace graft::dsl {

/// The largest rule file read (16 MiB, which takes a few hundred MiB to parse and check): the
/// standard library is a few dozen KiB, and a file is refused before it is read, so a wrong
/// path (a device, a huge log) costs nothing.
inline constexpr uint64_t kMaxRuleFileBytes = uint64_t{16} << 20;

/// Reads a rule file from the file system as the loader does: a regular file of at most
/// kMaxRuleFileBytes, or nullopt with `error` set ("cannot open 'x.rules': …", "'x.rules' is
/// not a regular file (it is a FIFO)").
std::optional<std::string> read_rule_file(const std::string& path, std::string* error);

struct LoadOptions {
  /// Reads a file's text, or returns nullopt and sets `error` ("cannot open 'x.rules'").
  /// Empty means read_rule_file; tests pass an in-memory map (ninja's VirtualFileSystem).
  std::function<std::optional<std::string>(const std::string& path, std::string* error)> read_file;
  /// Folders besides the importing file's own that imports may reach (--allow-path).
  PathPolicy paths;
};

/// Loads `paths` and, transitively, the files they `import` (paths relative to the importing
/// file; each file is loaded once; a cycle is an error with the chain in notes). An import must
/// lie in the importing file's folder or a folder `options.paths` allows (confined_path.h):
/// one that does not is an error at the import, and the file is not read. Every buffer goes
/// into `sources`, so diagnostics and the returned AST can point into them. Returns the checked
/// set, or nullopt after reporting at least one error to `diags`.
[[nodiscard]] std::optional<RuleFileSet> load_rule_files(const std::vector<std::string>& paths,
                                                         SourceManager& sources,
                                                         DiagnosticEngine& diags,
                                                         const LoadOptions& options = {});

}  // namespace graft::dsl
