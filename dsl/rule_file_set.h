// RuleFileSet: the checked result of loading one or more .rules files (with their imports).
// It owns the AST; every rule, phase and test in it has passed sema, so lowering and the test
// runner can rely on resolved ops, bound arguments and declared names (see ast.h "filled in by
// sema"). It is move-only and immutable after loading.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dsl/ast.h"

namespace graft::dsl {

namespace detail {
class Sema;
}

struct CheckedRule {
  const ast::RuleDecl* decl = nullptr;
  std::string name;
  std::string location;  // "fusion.rules:12", for provenance and --explain
  int benefit = 0;       // `benefit N`, or the number of ops the pattern matches
  bool explicit_benefit = false;
};

/// A phase as it runs: declared ones in file order (imports first), then the implicit
/// "default" phase with every rule no phase lists.
struct CheckedPhase {
  std::string name;
  ast::PhaseMode mode = ast::PhaseMode::kOnce;
  int max_iterations = 1;                // 1 for once
  std::vector<size_t> rules;             // indices into RuleFileSet::rules()
  const ast::PhaseDecl* decl = nullptr;  // nullptr for the implicit phase
};

/// The default iteration limit of `fixpoint` without `(max=K)`, and of implicit phases.
inline constexpr int kDefaultFixpointMax = 32;

struct CheckedTest {
  const ast::TestDecl* decl = nullptr;
  std::string name;
  /// What the test runs: its `apply` list (consecutive rules form one fixpoint phase, named
  /// phases run as declared), or every phase of the set when the test has no `apply`.
  std::vector<CheckedPhase> plan;
};

class RuleFileSet {
 public:
  RuleFileSet(std::unique_ptr<ast::Context> context, std::vector<const ast::RuleFile*> files,
              std::vector<std::string> file_names)
      : context_(std::move(context)),
        files_(std::move(files)),
        file_names_(std::move(file_names)) {}
  // Owns the AST that every pointer below points into.
  RuleFileSet(const RuleFileSet&) = delete;
  RuleFileSet& operator=(const RuleFileSet&) = delete;
  RuleFileSet(RuleFileSet&&) = default;
  RuleFileSet& operator=(RuleFileSet&&) = default;

  /// Parsed files, each after the files it imports.
  const std::vector<const ast::RuleFile*>& files() const { return files_; }
  const std::vector<std::string>& file_names() const { return file_names_; }
  const std::vector<CheckedRule>& rules() const { return rules_; }
  const std::vector<CheckedPhase>& phases() const { return phases_; }
  const std::vector<CheckedTest>& tests() const { return tests_; }
  const CheckedRule* find_rule(std::string_view name) const;

  /// "3 rules, 2 phases, 1 test" followed by one line per phase and the test names.
  std::string summary() const;

 private:
  friend class detail::Sema;  // fills in rules, phases and tests

  std::unique_ptr<ast::Context> context_;
  std::vector<const ast::RuleFile*> files_;
  std::vector<std::string> file_names_;
  std::vector<CheckedRule> rules_;
  std::vector<CheckedPhase> phases_;
  std::vector<CheckedTest> tests_;
};

}  // namespace graft::dsl
