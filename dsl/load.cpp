// Loading rule files: reads each file once, parses it, follows its imports depth-first and
// orders the files so every file comes after the files it imports. An import of a file that
// is still being loaded closes a cycle; the error names the whole chain.
#include "dsl/load.h"

#include <filesystem>
#include <map>
#include <memory>

#include "dsl/parser.h"
#include "dsl/sema.h"
#include "engine/support/input_file.h"

namespace graft::dsl {
namespace {

class Loader {
 public:
  Loader(SourceManager& sources, DiagnosticEngine& diags, const LoadOptions& options)
      : sources_(sources),
        diags_(diags),
        options_(options),
        ctx_(std::make_unique<ast::Context>()) {}

  /// Loads `path` (reached through `via`, or given on the command line when nullptr).
  void load(const std::string& path, const ast::ImportDecl* via);

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

  void report_cycle(const std::string& path, const ast::ImportDecl* via);
  std::optional<std::string> read(const std::string& path, const ast::ImportDecl* via);

  SourceManager& sources_;
  DiagnosticEngine& diags_;
  const LoadOptions& options_;
  std::unique_ptr<ast::Context> ctx_;
  std::vector<ast::RuleFile*> ordered_;
  std::map<std::string, State> states_;
  std::vector<Frame> stack_;
  int errors_before_ = diags_.error_count();
};

std::string normalize(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().generic_string();
}

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

std::optional<std::string> Loader::read(const std::string& path, const ast::ImportDecl* via) {
  std::string error;
  std::optional<std::string> text =
      options_.read_file ? options_.read_file(path, &error) : read_rule_file(path, &error);
  if (!text) {
    diags_.error(via != nullptr ? DiagLocation::at(via->path->range) : DiagLocation::in_file(path),
                 error);
    return text;
  }
  // Editors on Windows start UTF-8 files with a byte-order mark; it is not part of the text.
  if (text->starts_with("\xEF\xBB\xBF")) text->erase(0, 3);
  return text;
}

void Loader::load(const std::string& raw_path, const ast::ImportDecl* via) {
  std::string path = normalize(raw_path);
  if (auto it = states_.find(path); it != states_.end()) {
    if (it->second == State::kLoading) report_cycle(path, via);
    return;  // already loaded (a diamond): once is enough
  }
  states_[path] = State::kLoading;
  std::optional<std::string> text = read(path, via);
  if (!text) {
    states_[path] = State::kDone;
    return;
  }
  FileId file = sources_.add_buffer(path, std::move(*text));
  ast::RuleFile* parsed = parse_rules(file, sources_, *ctx_, diags_);
  if (parsed == nullptr) {
    states_[path] = State::kDone;
    return;
  }
  stack_.push_back({path, via});
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const ast::Decl* decl : parsed->decls) {
    const auto* import = ast::dyn_cast<ast::ImportDecl>(decl);
    if (import == nullptr) continue;
    if (import->path->value.empty()) {
      diags_.error(DiagLocation::at(import->path->range), "empty import path");
      continue;
    }
    load((dir / std::string(import->path->value)).string(), import);
  }
  stack_.pop_back();
  states_[path] = State::kDone;
  ordered_.push_back(parsed);
}

}  // namespace

std::optional<std::string> read_rule_file(const std::string& path, std::string* error) {
  return read_input_file(path, {"rule file", kMaxRuleFileBytes}, error);
}

std::optional<RuleFileSet> load_rule_files(const std::vector<std::string>& paths,
                                           SourceManager& sources, DiagnosticEngine& diags,
                                           const LoadOptions& options) {
  Loader loader(sources, diags, options);
  for (const std::string& path : paths) loader.load(path, nullptr);
  return loader.finish();
}

}  // namespace graft::dsl
