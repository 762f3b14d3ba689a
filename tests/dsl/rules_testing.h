// Helpers for dsl tests: load rule text from memory (ninja's VirtualFileSystem idea) and get
// the rendered diagnostics as one string, ready for whole-string golden comparisons.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "dsl/ast.h"
#include "dsl/rule_file_set.h"
#include "engine/support/confined_path.h"
#include "engine/support/source_manager.h"

namespace graft::testing {

struct LoadedRules {
  std::unique_ptr<SourceManager> sources;  // outlives `set`, whose AST points into it
  std::string diagnostics;                 // everything reported, rendered
  std::optional<dsl::RuleFileSet> set;
};

/// Loads `root` from the in-memory `files` (name -> text), following imports among them;
/// `paths` allows imports outside the importing file's folder.
LoadedRules load_rules(const std::map<std::string, std::string>& files, const std::string& root,
                       const PathPolicy& paths = {});
/// Loads `text` as "test.rules".
LoadedRules load_rules(const std::string& text);

struct ParsedRules {
  std::unique_ptr<SourceManager> sources;
  std::unique_ptr<dsl::ast::Context> ctx;
  dsl::ast::RuleFile* file = nullptr;  // nullptr on a syntax error
  std::string diagnostics;
};

/// Parses `text` as "test.rules" without sema.
ParsedRules parse_text(const std::string& text);

}  // namespace graft::testing
