// Loading rule files: reads each file once, parses it, follows its imports depth-first and
// orders the files so every file comes after the files it imports. An import of a file that
// is still being loaded closes a cycle; the error names the whole chain. An import resolves in
// the importing file's folder (FileConfinement) before anything is read, so a rule file cannot
// make graft read, and quote in a diagnostic, a file elsewhere.
#include "dsl/load.h"

#include <filesystem>
#include <map>
#include <memory>

#include "dsl/parser.h"
#include "dsl/sema.h"
#include "engine/support/input_file.h"

namespace graft::dsl {
namespace {

constexpr InputFileKind kRuleFileKind{"rule file", kMaxRuleFileBytes};

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticEngine& diags, const LoadOptions& options)
      : sources_(sources),
        diags_(diags),
        options_(options),
        ctx_(std::make_unique<ast::Context>()) {}

  /// Loads `path`, given on the command line.
  void load_root(const std::string& path) { load({normalize(path), nullptr, "", std::nullopt}); }

  std::optional<RuleFileSet> finish() {
    if (diags_.error_count() > errors_before_) return std::nullopt;
    return check_rule_files(std::move(ctx_), ordered_, sources_, diags_);
  }

 private:
  enum class State { kLoading, kDone };
  struct Frame {
    std::string path;
    const ast::ImportDecl* via;  // the import that led here; nullptr for a root
  };

  /// A file to load: how it is shown and remembered, and for an import where it really is.
  struct FileToLoad {
    std::string path;                       // normalised; names the file in diagnostics
    const ast::ImportDecl* via = nullptr;   // the import that led here; nullptr for a root
    std::string real_path;                  // an import's canonical path, opened instead
    std::optional<FileConfinement> folder;  // an import's allowed folders, checked once open
  };

  static std::string normalize(const std::string& path) {
    return std::filesystem::path(path).lexically_normal().generic_string();
  }
  void load(const FileToLoad& file);
  std::optional<FileToLoad> resolve_import(const ast::ImportDecl& import,
                                           const std::filesystem::path& dir);
  void report_cycle(const std::string& path, const ast::ImportDecl* via);
  std::optional<std::string> read(const FileToLoad& file);
  static std::optional<std::string> read_from_disk(const FileToLoad& file, std::string* error);

  SourceManager& sources_;
  DiagnosticEngine& diags_;
  const LoadOptions& options_;
  std::unique_ptr<ast::Context> ctx_;
  std::vector<ast::RuleFile*> ordered_;
  std::map<std::string, State> states_;
  std::vector<Frame> stack_;
  int errors_before_ = diags_.error_count();
};

void Loader::report_cycle(const std::string& path, const ast::ImportDecl* via) {
  size_t start = 0;
  while (stack_[start].path != path) ++start;
  std::string chain;
  for (size_t i = start; i < stack_.size(); ++i) chain += "'" + stack_[i].path + "' -> ";
  chain += "'" + path + "'";
  Diagnostic& d = diags_.error(DiagLocation::at(via->path->range), "import cycle: " + chain);
  // One note per earlier link, so every import taking part can be found.
  for (size_t i = start + 1; i < stack_.size(); ++i) {
    DiagnosticEngine::add_note(
        d, DiagLocation::at(stack_[i].via->path->range),
        "'" + stack_[i - 1].path + "' imports '" + stack_[i].path + "' here");
  }
}

std::optional<Loader::FileToLoad> Loader::resolve_import(const ast::ImportDecl& import,
                                                         const std::filesystem::path& dir) {
  std::string_view name = import.path->value;
  if (name.empty()) {
    diags_.error(DiagLocation::at(import.path->range), "empty import path");
    return std::nullopt;
  }
  FileToLoad file{normalize((dir / std::string(name)).string()), &import, "", std::nullopt};
  FileConfinement folder(dir.string(), options_.paths, "the importing file's folder");
  std::string error;
  // A reader given in the options is keyed by `file.path`; paths that exist on disk are still
  // checked by their canonical location, others (in memory) as written.
  std::optional<std::string> real = folder.resolve(name, &error);
  if (real && !options_.read_file) {
    file.real_path = std::move(*real);
    file.folder = std::move(folder);
  }
  if (!error.empty()) {
    diags_.error(DiagLocation::at(import.path->range), std::move(error));
    return std::nullopt;
  }
  return file;
}

std::optional<std::string> Loader::read_from_disk(const FileToLoad& file, std::string* error) {
  const std::string& path = file.real_path.empty() ? file.path : file.real_path;
  std::optional<InputFile> input = InputFile::open(path, kRuleFileKind, error);
  if (!input) return std::nullopt;
  // An import's descriptor is checked before a byte is read (a folder swapped for a symlink).
  if (file.folder && !file.folder->check_opened(input->fd(), path, error)) return std::nullopt;
  return input->read_all(error);
}

std::optional<std::string> Loader::read(const FileToLoad& file) {
  std::string error;
  std::optional<std::string> text =
      options_.read_file ? options_.read_file(file.path, &error) : read_from_disk(file, &error);
  if (!text) {
    diags_.error(file.via != nullptr ? DiagLocation::at(file.via->path->range)
                                     : DiagLocation::in_file(file.path),
                 error);
    return text;
  }
  // Editors on Windows start UTF-8 files with a byte-order mark; it is not part of the text.
  if (text->starts_with("\xEF\xBB\xBF")) text->erase(0, 3);
  return text;
}

void Loader::load(const FileToLoad& file) {
  const std::string& path = file.path;
  if (auto it = states_.find(path); it != states_.end()) {
    if (it->second == State::kLoading) report_cycle(path, file.via);
    return;  // already loaded (a diamond): once is enough
  }
  states_[path] = State::kLoading;
  std::optional<std::string> text = read(file);
  if (!text) {
    states_[path] = State::kDone;
    return;
  }
  FileId id = sources_.add_buffer(path, std::move(*text));
  ast::RuleFile* parsed = parse_rules(id, sources_, *ctx_, diags_);
  if (parsed == nullptr) {
    states_[path] = State::kDone;
    return;
  }
  stack_.push_back({path, file.via});
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const ast::Decl* decl : parsed->decls) {
    const auto* import = ast::dyn_cast<ast::ImportDecl>(decl);
    if (import == nullptr) continue;
    if (std::optional<FileToLoad> imported = resolve_import(*import, dir)) load(*imported);
  }
  stack_.pop_back();
  states_[path] = State::kDone;
  ordered_.push_back(parsed);
}

}  // namespace

std::optional<std::string> read_rule_file(const std::string& path, std::string* error) {
  return read_input_file(path, kRuleFileKind, error);
}

std::optional<RuleFileSet> load_rule_files(const std::vector<std::string>& paths,
                                           SourceManager& sources, DiagnosticEngine& diags,
                                           const LoadOptions& options) {
  Loader loader(sources, diags, options);
  for (const std::string& path : paths) loader.load_root(path);
  return loader.finish();
}

}  // namespace graft::dsl
