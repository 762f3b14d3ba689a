// model.json <-> Graph (docs/model-format.md is the specification). Loading validates
// everything and reports each problem with its JSON pointer; saving is atomic.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/graph.h"
#include "engine/support/diagnostics.h"

namespace graft {

/// A loaded model: the graph (which owns its constants) and what the file said about itself.
struct Model {
  std::unique_ptr<Graph> graph;
  std::string path;              // the model.json it came from ("" if built in memory)
  nlohmann::json metadata = nlohmann::json::object();
};

/// Loads `path` and its weights. Returns nullopt after reporting every problem found to
/// `diags` (JSON syntax with line:col, JSON pointers for everything else).
[[nodiscard]] std::optional<Model> load_model(const std::string& path, DiagnosticEngine& diags);
/// Loads from JSON text; `base_dir` resolves the weights path; `display_name` is used in
/// diagnostics.
[[nodiscard]] std::optional<Model> load_model_from_string(const std::string& text,
                                                          const std::string& display_name,
                                                          const std::string& base_dir,
                                                          DiagnosticEngine& diags);

/// Serialises `model` to model.json text naming `weights_file` (relative; "" for none).
std::string model_to_json_text(const Model& model, const std::string& weights_file);
/// Writes `path` and, if the graph references any constants, `<stem>.safetensors` beside it,
/// both atomically (weights renamed first). Returns false after reporting to `diags`.
[[nodiscard]] bool save_model(const Model& model, const std::string& path, DiagnosticEngine& diags);

/// Binds Python-convention args/kwargs (as JSON values whose node references are already
/// resolved through `resolve`) to `schema`. Used by the loader and by anything else that
/// accepts torch-style calls. Returns false and sets `error` and `error_path` (a suffix such
/// as "/kwargs/stride") on failure.
struct BoundCall {
  std::vector<Input> inputs;
  std::vector<AttrValue> attrs;
};

}  // namespace graft
