// fuzz_rules: the .rules front end on arbitrary bytes — loading with imports, parsing, sema,
// lowering, compiling the matcher — and then the fuzzed rules run on fixed models, because
// rule text is user input all the way into the rewrite driver.
//
// Files: the input is split at NUL bytes into main.rules, a.rules, b.rules, … (see
// split_parts), and the standard library (std.rules, cleanup.rules, …) sits beside them, so
// imports, diamonds and cycles are all reachable. Everything is served from memory through
// LoadOptions::read_file: an import of any other path is "cannot open", never a file read.
//
// Checks: a rejection comes with an error; rewriting never leaves a graph the verifier
// rejects (the driver rolls back a failing rewrite, so this holds even when it reports an
// error).
#include <memory>
#include <string>
#include <vector>

#include "dsl/load.h"
#include "dsl/lower.h"
#include "engine/io/model_json.h"
#include "engine/ir/verifier.h"
#include "engine/rewrite/rewriter.h"
#include "eval/constant_folder.h"
#include "fuzz/fuzz_support.h"

namespace {

using graft::DiagnosticEngine;
using graft::fuzz::fail;

constexpr size_t kMaxFiles = 4;
const char* const kFileNames[kMaxFiles] = {"main.rules", "a.rules", "b.rules", "c.rules"};

/// The models the fuzzed rules run on: a CNN (conv, batch_norm, pools, linear) and a small op
/// zoo (matmul, layer_norm, gelu, softmax, shape ops, scalar arithmetic).
const std::vector<graft::Model>& models() {
  static const std::vector<graft::Model> loaded = [] {
    std::vector<graft::Model> out;
    for (const char* path : {"examples/models/tiny_cnn/model.json", "fuzz/seeds/model_json/zoo.json"}) {
      DiagnosticEngine diags;
      std::optional<graft::Model> m = graft::load_model(graft::fuzz::source_path(path), diags);
      if (!m) fail("fuzz harness set-up", diags.render());
      out.push_back(std::move(*m));
    }
    return out;
  }();
  return loaded;
}

void run_on_models(const graft::RuleSet& rules) {
  graft::CompiledRules compiled(rules);
  graft::RewriteOptions options;
  options.fold = graft::eval::reference_constant_folder();
  for (const graft::Model& model : models()) {
    std::unique_ptr<graft::Graph> graph = model.graph->clone();
    DiagnosticEngine diags;
    graft::RewriteResult result = graft::rewrite_graph(*graph, compiled, options, diags);
    std::string rendered = diags.render();
    if (!result.ok && !diags.has_errors()) fail("rules: rewrite failed without an error", "");
    if (!graft::verify_graph(*graph, diags, "rewritten")) {
      fail("rules: rewriting left a graph the verifier rejects", diags.render());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = graft::fuzz::split_parts(data, size, kMaxFiles);
  const auto& library = graft::fuzz::std_rule_files();
  graft::dsl::LoadOptions options;
  options.read_file = [&](const std::string& path, std::string* error) -> std::optional<std::string> {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (path == kFileNames[i]) return std::string(parts[i]);
    }
    if (auto it = library.find(path); it != library.end()) return it->second;
    *error = "cannot open '" + path + "'";
    return std::nullopt;
  };
  graft::SourceManager sources;
  DiagnosticEngine diags(&sources);
  std::optional<graft::dsl::RuleFileSet> set =
      graft::dsl::load_rule_files({kFileNames[0]}, sources, diags, options);
  if (set) (void)set->summary();
  std::optional<graft::RuleSet> rules;
  if (set) rules = graft::dsl::lower(*set, sources, diags);
  std::string rendered = diags.render();  // carets and line text on arbitrary bytes
  if (!rules) {
    if (!diags.has_errors()) fail("rules: rejected without an error", rendered);
    return 0;
  }
  run_on_models(*rules);
  return 0;
}
