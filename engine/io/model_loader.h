// The model.json loader's insides, shared by its four files: model_json.cpp reads the text (the
// top-level object, then the "nodes" array one node at a time), model_load_head.cpp checks the
// top level and reads the weights, the inline tensors and the types, model_load_nodes.cpp
// builds the graph node by node and model_load_call.cpp binds call_function nodes. Not for use
// outside them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/io/json_tape.h"
#include "engine/io/model_json.h"
#include "engine/ir/shape.h"
#include "engine/support/string_map.h"
#include "engine/rewrite/type_memo.h"

namespace graft {

/// Diagnostics held back until the whole text has been read: a file with a syntax error is
/// reported with that error alone, and a few messages need what later nodes say (the node
/// count, where a name is defined). At most `capacity` are stored; the rest are counted.
class StagedDiagnostics {
 public:
  static constexpr size_t kNotStored = static_cast<size_t>(-1);

  explicit StagedDiagnostics(size_t capacity) : capacity_(capacity) {}
  /// The index of the error for patch(), or kNotStored.
  size_t error(DiagLocation loc, std::string message);
  /// Whether the next error would be stored (its message is worth composing).
  bool storing() const { return stored_.size() < capacity_; }
  void patch(size_t index, std::string message) { stored_[index].message = std::move(message); }
  /// Takes over what `diags` collected (every error counted, as many stored as fit).
  void absorb(const DiagnosticEngine& diags);
  bool has_errors() const { return errors_ > 0; }
  /// Reports everything to `diags`, in order.
  void flush_to(DiagnosticEngine& diags) const;

 private:
  size_t capacity_;
  std::vector<Diagnostic> stored_;
  int errors_ = 0;
  int stored_errors_ = 0;
};

/// The members of the top-level object other than an array of nodes, in file order.
struct TopLevel {
  struct Member {
    std::string key;
    size_t quote = 0;  // offset of the key's opening quote
    JsonTape value;
  };
  std::vector<Member> members;

  const Member* find(std::string_view key) const {
    for (const Member& m : members) {
      if (m.key == key) return &m;
    }
    return nullptr;
  }
};

class ModelLoader {
 public:
  ModelLoader(const std::string& file, const std::string& base_dir, const PathPolicy& policy,
              std::string_view text, StagedDiagnostics& diags);

  /// The top level without its nodes: unknown keys, format and version, metadata, weights and
  /// inline tensors. False when the file is not a graft model: its nodes mean nothing then.
  bool load_head(const TopLevel& top);
  /// When "nodes" is not an array of nodes (or absent): reports it from `top`.
  void load_nodes_member(const TopLevel& top);
  /// Starts fetching what load_node(n) will look up first (the index slot of n's name).
  void prefetch_node(JsonRef n) const;
  /// The next element of the nodes array.
  void load_node(JsonRef n);
  /// After the last element.
  void end_nodes();
  /// The model, unless an error was staged.
  std::optional<Model> finish();

 private:
  // ** head (model_load_head.cpp) **
  void error(const std::string& path, std::string message);
  DiagLocation top_level_location(const TopLevel& top, const std::string& key) const;
  void check_keys(JsonRef object, const std::string& path, const std::vector<std::string>& allowed,
                  const char* what);
  void check_keys(std::vector<std::string_view> keys, const std::string& path,
                  const std::vector<std::string>& allowed, const char* what);
  bool check_header(const TopLevel& top);
  void load_weights(const TopLevel& top);
  void load_inline_tensors(JsonRef tensors);
  void load_buffers(JsonRef buffers);
  std::optional<ConstantTensor> parse_inline_tensor(JsonRef t, const std::string& path);
  std::optional<TensorType> parse_type(JsonRef obj, const std::string& path,
                                       bool allow_unknown = false);
  std::optional<TensorType> parse_meta(JsonRef meta, const std::string& path, bool required,
                                       bool allow_unknown = false);

  // ** nodes (model_load_nodes.cpp) **
  /// What a node name stands for when it is not a node of the graph.
  struct NameEntry {
    enum class State : uint8_t { kDeclared, kFailed, kOutput };
    uint32_t first_index = 0;  // the first node that declared it
    State state = State::kDeclared;
  };
  /// A parameter's argument: positional or by keyword.
  struct Given {
    std::optional<JsonRef> value;
    bool keyword = false;
    size_t position = 0;
    std::string_view key;
  };
  void load_node_at(JsonRef n, size_t index);
  void finish_output(bool last);
  void declare(JsonRef n, size_t index);
  bool defined(std::string_view name) const;
  void remember(std::string_view name, size_t index, NameEntry::State state);
  void reject_args(JsonRef n, const std::string& path, const char* kind);
  Node* load_placeholder(JsonRef n, const std::string& path, std::string_view name);
  Node* load_get_attr(JsonRef n, const std::string& path, std::string_view name,
                      std::string_view target);
  void load_output(JsonRef n, const std::string& path);
  std::optional<Node*> resolve_ref(JsonRef v, const std::string& path, bool* quiet_fail);
  void report_undefined(std::string_view name, const std::string& path);
  Node* load_call(JsonRef n, const std::string& path, std::string_view name,
                  std::string_view target);
  bool bind_arguments(const OpSchema& schema, JsonRef n, const std::string& path,
                      std::vector<Given>* given);
  std::string given_path(const std::string& node_path, const Given& g) const;
  bool bind_operand(const OpSchema& schema, const OperandSpec& spec, const Given& given,
                    const std::string& node_path, std::vector<Input>* inputs, bool* quiet);
  void infer_type(Node* node, JsonRef n, const std::string& path);

  const std::string& file_;
  const std::string& base_dir_;
  const PathPolicy& policy_;
  std::string_view text_;
  StagedDiagnostics& diags_;
  std::unique_ptr<Graph> graph_ = std::make_unique<Graph>();
  nlohmann::json metadata_ = nlohmann::json::object();
  bool weights_failed_ = false;

  size_t count_ = 0;  // nodes seen so far
  bool saw_output_ = false;
  std::optional<JsonTape> output_;     // an output node not yet known to be the last
  std::vector<uint32_t> index_of_id_;  // node id -> its index in "nodes"
  StringMap<NameEntry> names_;         // names that are not (yet) graph nodes
  std::string_view current_name_;      // of the node being loaded, declared but not defined
  size_t current_index_ = 0;
  struct PendingRef {  // "reference to undefined node", unless a later node declares the name
    size_t diag;
    std::string name;
  };
  std::vector<PendingRef> pending_refs_;
  StringMap<uint32_t> pending_names_;  // -> first later index that declares it
  std::vector<std::pair<size_t, size_t>> outputs_not_last_;  // diag, index
  // Nodes by a hash of their name: most references are to nodes just read, which are found
  // here without a probe of the graph's name index of millions.
  std::array<Node*, 256> recent_{};
  // One per op: consecutive nodes of an op mostly have the types and attributes of the last.
  std::unordered_map<const OpSchema*, TypeMemo> type_memos_{};
  StringMap<SharedString> provenances_;
  std::vector<Given> given_;   // load_call's, kept for its buffer
  std::vector<Input> inputs_;  // likewise
};

}  // namespace graft
