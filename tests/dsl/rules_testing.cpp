// In-memory loading of rule text for the dsl tests, and rule text built for tests.
#include "tests/dsl/rules_testing.h"

#include "dsl/load.h"
#include "dsl/parser.h"

namespace graft::testing {

LoadedRules load_rules(const std::map<std::string, std::string>& files, const std::string& root,
                       const PathPolicy& paths) {
  LoadedRules result;
  result.sources = std::make_unique<SourceManager>();
  DiagnosticEngine diags(result.sources.get());
  dsl::LoadOptions options;
  options.paths = paths;
  options.read_file = [&files](const std::string& path,
                               std::string* error) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) {
      *error = "cannot open '" + path + "'";
      return std::nullopt;
    }
    return it->second;
  };
  result.set = dsl::load_rule_files({root}, *result.sources, diags, options);
  result.diagnostics = diags.render();
  return result;
}

LoadedRules load_rules(const std::string& text) {
  return load_rules({{"test.rules", text}}, "test.rules");
}

ParsedRules parse_text(const std::string& text) {
  ParsedRules result;
  result.sources = std::make_unique<SourceManager>();
  result.ctx = std::make_unique<dsl::ast::Context>();
  FileId file = result.sources->add_buffer("test.rules", text);
  DiagnosticEngine diags(result.sources.get());
  result.file = dsl::parse_rules(file, *result.sources, *result.ctx, diags);
  result.diagnostics = diags.render();
  return result;
}

std::string balanced_tree_text(const std::string& op, std::vector<std::string> operands) {
  std::vector<std::string> ops(operands.size() - 1, op);
  return balanced_tree_text(ops, std::move(operands));
}

std::string balanced_tree_text(const std::vector<std::string>& ops,
                               std::vector<std::string> operands) {
  size_t k = 0;
  while (operands.size() > 1) {
    std::vector<std::string> next;
    for (size_t i = 0; i + 1 < operands.size(); i += 2) {
      next.push_back(ops.at(k++) + "(" + operands[i] + ", " + operands[i + 1] + ")");
    }
    operands = std::move(next);
  }
  return operands[0];
}

}  // namespace graft::testing
