// Confinement of files named inside other files — model.json's "weights", a rule file's
// `import`: they resolve inside the folder of the file that names them, so a model or rule file
// from someone else cannot make graft read (and copy into its output, or quote in a diagnostic)
// any other file of the machine. The user allows more folders explicitly (`--allow-path DIR`).
// docs/reliability.md, "Confinement", says what is promised.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graft {

/// What the user allows besides the naming file's own folder.
struct PathPolicy {
  /// Folders (and everything under them) that named files may also lie in. With any folder
  /// given, absolute names and '..' are accepted when the real location lies in one of them.
  std::vector<std::string> allowed_roots;
};

/// The folders a file named inside one file may lie in: the naming file's folder and the
/// policy's roots, all canonical (symlinks resolved).
class FileConfinement {
 public:
  /// `naming_dir` is the folder of the naming file ("" or "." for the current directory);
  /// `folder_noun` says what it is in messages ("the model's folder").
  FileConfinement(const std::string& naming_dir, const PathPolicy& policy,
                  std::string folder_noun);

  /// The name's problem before any file is touched: empty, a control character (NUL would cut
  /// the name short), and without allowed roots an absolute path or a '..' component. ""
  /// when there is none.
  std::string check_name(std::string_view name) const;
  /// `name` joined to the naming folder and resolved to its canonical path, which is what the
  /// caller opens; nullopt with `error` set when the name is bad or the canonical path lies
  /// outside every allowed folder (a symlink out). Nothing is opened or read.
  std::optional<std::string> resolve(std::string_view name, std::string* error) const;
  /// Whether the file open as `fd` (opened from a path resolve() returned) lies in an allowed
  /// folder: its real path, read back from the descriptor, is checked again, so a folder on the
  /// way swapped for a symlink between resolve() and open() is caught. Sets `error` if not.
  bool check_opened(int fd, const std::string& opened_path, std::string* error) const;

  /// Whether the normalised path `path` lies in `root` (or is it), compared by components.
  static bool is_within(const std::filesystem::path& path, const std::filesystem::path& root);
  /// `name` with control characters and backslashes escaped (\xNN), for quoting in messages.
  static std::string printable(std::string_view name);

 private:
  std::string outside_message(std::string_view name, const std::string& where) const;
  bool allowed(const std::filesystem::path& canonical) const;

  std::filesystem::path folder_;             // the naming file's folder, canonical
  std::vector<std::filesystem::path> roots_; // the policy's roots, canonical
  std::string folder_noun_;
};

}  // namespace graft
