// model.json <-> Graph (docs/model-format.md is the specification). Loading validates
// everything and reports each problem with its JSON pointer; saving is atomic.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/graph.h"
#include "engine/support/diagnostics.h"

namespace graft {

/// A loaded model: the graph (which owns its constants) and what the file said about itself.
struct Model {
  std::unique_ptr<Graph> graph;
  std::string path;  // the model.json it came from ("" if built in memory)
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

/// The weights file `save_model` writes beside `model_path`: "dir/net.json" -> "net.safetensors".
std::string weights_file_for(const std::string& model_path);

/// Serialises `model` to model.json text naming `weights_file` (relative; "" for none).
std::string model_to_json_text(const Model& model, const std::string& weights_file);
/// The safetensors bytes of every constant a live get_attr node reads.
std::string model_weights_bytes(const Model& model);
/// Writes `path` and, if the graph references any constants, the weights file beside it
/// (weights_file_for), both atomically (weights renamed first). Returns false after
/// reporting to `diags`; then neither file was changed.
[[nodiscard]] bool save_model(const Model& model, const std::string& path, DiagnosticEngine& diags);

}  // namespace graft
