// model.json <-> Graph (docs/model-format.md is the specification). Loading validates
// everything and reports each problem with its JSON pointer; saving is atomic.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/ir/graph.h"
#include "engine/support/confined_path.h"
#include "engine/support/diagnostics.h"

namespace graft {

class ByteSink;

/// A loaded model: the graph (which owns its constants) and what the file said about itself.
struct Model {
  std::unique_ptr<Graph> graph;
  std::string path;  // the model.json it came from ("" if built in memory)
  nlohmann::json metadata = nlohmann::json::object();
};

/// Loads `path` and its weights. Returns nullopt after reporting every problem found to
/// `diags` (JSON syntax with line:col, JSON pointers for everything else). The text must be
/// strict JSON (no NUL byte, no key twice in an object), and the weights file must lie in the
/// model's folder or a folder `policy` allows (confined_path.h).
[[nodiscard]] std::optional<Model> load_model(const std::string& path, DiagnosticEngine& diags,
                                              const PathPolicy& policy = {});
/// Loads from JSON text; `base_dir` is the model's folder, where the weights path resolves;
/// `display_name` is used in diagnostics.
[[nodiscard]] std::optional<Model> load_model_from_string(const std::string& text,
                                                          const std::string& display_name,
                                                          const std::string& base_dir,
                                                          DiagnosticEngine& diags,
                                                          const PathPolicy& policy = {});

/// The weights file `save_model` writes beside `model_path` for weights whose content hash is
/// `hash`: "dir/net.json" -> "dir/net.json.<16 hex digits>.safetensors". Naming the file after
/// its contents makes model.json the single commit point of a save: new weights never
/// overwrite the file the previous model.json names, so a save killed at any moment leaves
/// the old model or the new one, never old JSON beside new weights. The whole file name of
/// the model is kept, so two outputs (net.json, net.fused) never share a weights file.
std::string weights_file_for(const std::string& model_path, uint64_t hash);
/// Whether `file_name` is a weights file save_model writes for the model file named
/// `model_file_name` ("net.json").
bool is_saved_weights_name(std::string_view file_name, std::string_view model_file_name);

/// The constants live get_attr nodes read, by name: what the weights file of a save holds.
std::map<std::string, ConstantTensor> referenced_constants(const Graph& graph);
/// Whether model.json and safetensors can hold every value of `model` exactly: scalar operands
/// and float attributes (JSON has no inf or NaN; integer scalars must fit int64) and constant
/// names (kReservedConstantName). Reports each one that cannot, naming its node and `path`.
[[nodiscard]] bool check_saveable(const Model& model, const std::string& path,
                                  DiagnosticEngine& diags);
/// Writes the model.json text of `model`, naming `weights_file` (relative; "" for none), to
/// `sink` a piece at a time; false as soon as the sink fails. Every value must be saveable
/// (check_saveable).
[[nodiscard]] bool write_model_json(const Model& model, const std::string& weights_file,
                                    ByteSink& sink);
/// The same text in memory.
std::string model_to_json_text(const Model& model, const std::string& weights_file);
/// The safetensors bytes of every constant a live get_attr node reads.
std::string model_weights_bytes(const Model& model);
/// Writes `path` and, if the graph references any constants, the weights file beside it
/// (weights_file_for), streamed from the constants (memory does not grow with their size).
/// Writers of one `path` take turns (output_lock.h). The weights are put in place first, then
/// model.json is renamed over the old one — the commit. Afterwards the files this output's
/// earlier saves wrote and no longer needs are removed: the weights file the previous
/// model.json named, and what a killed save recorded — never a file of another name, and never
/// the weights of the model being saved unless it is saved in place (model.path is `path`).
/// Returns false after reporting to `diags`; then `path` and the files it names are unchanged.
[[nodiscard]] bool save_model(const Model& model, const std::string& path, DiagnosticEngine& diags);

}  // namespace graft
