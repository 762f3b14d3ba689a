// Helpers for dsl tests: load rule text from memory (ninja's VirtualFileSystem idea) and get
// the rendered diagnostics as one string, ready for whole-string golden comparisons; build
// rule text for generated patterns.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

/// `op` over `operands` as a balanced tree in rule syntax, "add(add(a, b), add(c, d))"; the
/// number of operands is a power of two.
std::string balanced_tree_text(const std::string& op, std::vector<std::string> operands);
/// The same with an op per tree node: `ops[k]` is the k-th node, level by level from the
/// leaves, left to right ("mul(add(a, b), add(c, d))" for {add, add, mul}).
std::string balanced_tree_text(const std::vector<std::string>& ops,
                               std::vector<std::string> operands);

}  // namespace graft::testing
