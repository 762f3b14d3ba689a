// The nodes of model.json, read one at a time in file order. A node may refer only to nodes
// before it, so each is built as soon as it is read; what only later nodes can tell (that a
// name is defined further on, that an output node is not the last) is filled into the staged
// messages at the end. A node whose inputs already failed is skipped quietly instead of
// producing a cascade of follow-on errors.
#include <algorithm>

#include "engine/io/model_loader.h"
#include "engine/support/edit_distance.h"
#include "engine/support/hash.h"

namespace graft {
namespace {

const std::vector<std::string> kNodeKeys = {"name", "op", "target", "args", "kwargs", "meta"};
const std::vector<std::string> kNodeKinds = {"placeholder", "get_attr", "call_function", "output"};

std::string output_not_last(size_t index, size_t count) {
  return "the output node must be the last node (found at index " + std::to_string(index) + " of " +
         std::to_string(count) + ")";
}

std::string defined_later(std::string_view name, size_t index) {
  return "reference to node '" + std::string(name) + "', which is defined later (at /nodes/" +
         std::to_string(index) + "): nodes must be in topological order, and a cycle has none";
}

}  // namespace

void ModelLoader::load_nodes_member(const TopLevel& top) {
  const TopLevel::Member* nodes = top.find("nodes");
  if (nodes == nullptr) {
    error("", "missing \"nodes\": the graph");
    return;
  }
  // An array is never a member here: it is read node by node (load_node).
  error("/nodes",
        "expected an array of nodes, got " + std::string(nodes->value.root().type_name()));
}

void ModelLoader::prefetch_node(JsonRef n) const {
  if (!n.is_object()) return;
  std::optional<JsonRef> name = n.find("name");
  if (name && name->is_string()) graph_->prefetch_name(name->str());
}

void ModelLoader::load_node(JsonRef n) {
  size_t index = count_++;
  if (output_) finish_output(/*last=*/false);  // an output node before this one
  declare(n, index);
  load_node_at(n, index);
}

void ModelLoader::end_nodes() {
  if (count_ == 0) {
    error("/nodes", "the graph is empty: it needs at least an output node");
    return;
  }
  if (output_) finish_output(/*last=*/true);
  for (const PendingRef& ref : pending_refs_) {
    uint32_t later = pending_names_.find(ref.name)->second;
    if (later != UINT32_MAX) diags_.patch(ref.diag, defined_later(ref.name, later));
  }
  for (const auto& [diag, index] : outputs_not_last_) {
    diags_.patch(diag, output_not_last(index, count_));
  }
  if (graph_->output() == nullptr && !saw_output_) {
    error("/nodes", "the graph has no output node (the last node must have \"op\": \"output\")");
  }
}

/// The output node read last, now that the next node or the end of the array says whether it
/// was the last node.
void ModelLoader::finish_output(bool last) {
  JsonTape tape = std::move(*output_);
  output_.reset();
  size_t index = count_ - (last ? 1 : 2);
  std::string path = "/nodes/" + std::to_string(index);
  std::string_view name = tape.root().find("name")->str();
  if (!last) {
    remember(name, index, NameEntry::State::kDeclared);
    size_t diag = diags_.error(DiagLocation::in_json(file_, path), output_not_last(index, 0));
    if (diag != StagedDiagnostics::kNotStored) outputs_not_last_.emplace_back(diag, index);
    return;
  }
  current_name_ = name;
  current_index_ = index;
  load_output(tape.root(), path);
  remember(name, index, NameEntry::State::kOutput);
}

/// A name the nodes so far did not define may be declared by a later node.
void ModelLoader::declare(JsonRef n, size_t index) {
  if (pending_names_.empty() || !n.is_object()) return;
  std::optional<JsonRef> name = n.find("name");
  if (!name || !name->is_string()) return;
  auto it = pending_names_.find(name->str());
  if (it != pending_names_.end() && it->second == UINT32_MAX) {
    it->second = static_cast<uint32_t>(index);
  }
}

bool ModelLoader::defined(std::string_view name) const {
  if (graph_->find(name) != nullptr) return true;
  auto it = names_.find(name);
  return it != names_.end() && it->second.state != NameEntry::State::kDeclared;
}

void ModelLoader::remember(std::string_view name, size_t index, NameEntry::State state) {
  auto it = names_.find(name);
  if (it == names_.end()) {
    if (state == NameEntry::State::kDeclared && graph_->find(name) != nullptr) return;
    names_.emplace(std::string(name), NameEntry{static_cast<uint32_t>(index), state});
  } else if (state != NameEntry::State::kDeclared) {
    it->second.state = state;
  }
}

void ModelLoader::load_node_at(JsonRef n, size_t index) {
  std::string path = "/nodes/" + std::to_string(index);
  current_name_ = {};
  if (!n.is_object()) {
    error(path, "expected a node object, got " + std::string(n.type_name()));
    return;
  }
  check_keys(n, path, kNodeKeys, "node key");
  std::optional<JsonRef> name_value = n.find("name");
  if (!name_value || !name_value->is_string() || name_value->str().empty()) {
    if (name_value && name_value->is_string()) remember("", index, NameEntry::State::kDeclared);
    error(path + "/name", "every node needs a non-empty string \"name\"");
    return;
  }
  std::string_view name = name_value->str();
  current_name_ = name;
  current_index_ = index;
  if (defined(name)) {
    auto it = names_.find(name);
    size_t first =
        it != names_.end() ? it->second.first_index : index_of_id_[graph_->find(name)->id()];
    error(path + "/name", "duplicate node name '" + std::string(name) +
                              "' (first defined at /nodes/" + std::to_string(first) + ")");
    return;
  }
  std::optional<JsonRef> op_value = n.find("op");
  if (!op_value || !op_value->is_string()) {
    remember(name, index, NameEntry::State::kDeclared);
    error(path + "/op", "expected one of placeholder, get_attr, call_function, output");
    return;
  }
  std::string_view op = op_value->str();
  std::string_view target;
  if (std::optional<JsonRef> t = n.find("target")) {
    if (!t->is_string()) {
      remember(name, index, NameEntry::State::kDeclared);
      error(path + "/target", "expected a string, got " + t->dump());
      return;
    }
    target = t->str();
  }
  Node* node = nullptr;
  if (op == "call_function") {
    node = load_call(n, path, name, target);
  } else if (op == "get_attr") {
    node = load_get_attr(n, path, name, target);
  } else if (op == "placeholder") {
    node = load_placeholder(n, path, name);
  } else if (op == "output") {
    saw_output_ = true;
    output_ = n.tape();  // a node is its tape's root; the last node, unless another follows
    return;
  } else {
    error(path + "/op", "unknown node op '" + std::string(op) + "'" + did_you_mean(op, kNodeKinds) +
                            " (expected placeholder, get_attr, call_function or output)");
  }
  if (node == nullptr) {  // defined all the same: later references to it are not "undefined"
    remember(name, index, NameEntry::State::kFailed);
    return;
  }
  if (index_of_id_.size() <= node->id()) index_of_id_.resize(node->id() + 1);
  index_of_id_[node->id()] = static_cast<uint32_t>(index);
  recent_[hash_string(name) % recent_.size()] = node;
}

void ModelLoader::reject_args(JsonRef n, const std::string& path, const char* kind) {
  for (const char* key : {"args", "kwargs"}) {
    std::optional<JsonRef> value = n.find(key);
    if (value && !value->empty()) {
      error(path + "/" + key, std::string("a ") + kind + " node takes no " + key);
    }
  }
}

Node* ModelLoader::load_placeholder(JsonRef n, const std::string& path, std::string_view name) {
  reject_args(n, path, "placeholder");
  std::optional<JsonRef> meta = n.find("meta");
  if (!meta || !meta->is_object()) {
    error(path + "/meta", "a placeholder needs \"meta\": {\"shape\": [...], \"dtype\": ...}");
    return nullptr;
  }
  std::optional<TensorType> type = parse_meta(*meta, path + "/meta", /*required=*/true);
  if (!type) return nullptr;
  return graph_->add_placeholder(name, *type);
}

Node* ModelLoader::load_get_attr(JsonRef n, const std::string& path, std::string_view name,
                                 std::string_view target) {
  reject_args(n, path, "get_attr");
  if (target.empty()) {
    error(path + "/target", "a get_attr node needs the tensor's name as \"target\"");
    return nullptr;
  }
  const ConstantTensor* tensor = graph_->constants().find(target);
  if (tensor == nullptr) {
    if (weights_failed_) return nullptr;  // already reported with the weights file
    std::vector<std::string> names;
    for (const auto& entry : graph_->constants().all()) names.push_back(entry.key);
    std::sort(names.begin(), names.end());  // the store is unordered; ties stay stable
    error(path + "/target", "no tensor named '" + std::string(target) + "' in the weights" +
                                did_you_mean(target, names));
    return nullptr;
  }
  Node* node = graph_->add_get_attr(name, target);
  if (std::optional<JsonRef> meta = n.find("meta")) {
    std::optional<TensorType> declared = parse_meta(*meta, path + "/meta", false);
    if (declared && *declared != tensor->type()) {
      error(path + "/meta", "meta says " + type_to_string(*declared) + " but tensor '" +
                                std::string(target) + "' is " + type_to_string(tensor->type()));
    }
  }
  return node;
}

/// Resolves a node reference {"node": name}; reports and returns nullopt otherwise.
/// `quiet_fail` is set when the referenced node itself failed to load (no new error).
std::optional<Node*> ModelLoader::resolve_ref(JsonRef v, const std::string& path,
                                              bool* quiet_fail) {
  std::optional<JsonRef> name_value = v.find("node");
  if (!v.is_object() || v.size() != 1 || !name_value || !name_value->is_string()) {
    error(path, "expected a node reference {\"node\": name}, got " + v.dump());
    return std::nullopt;
  }
  std::string_view name = name_value->str();
  Node* recent = recent_[hash_string(name) % recent_.size()];
  if (recent != nullptr && recent->name() == name) return recent;
  auto it = names_.find(name);
  if (it != names_.end() && it->second.state == NameEntry::State::kFailed) {
    *quiet_fail = true;
    return std::nullopt;
  }
  if (Node* node = graph_->find(name)) return node;
  if (it != names_.end() && it->second.state == NameEntry::State::kOutput) {
    error(path, "'" + std::string(name) + "' is the output node; it has no value");
    return std::nullopt;
  }
  if (it != names_.end()) {
    error(path, defined_later(name, it->second.first_index));
  } else if (name == current_name_) {
    error(path, defined_later(name, current_index_));
  } else {
    report_undefined(name, path);
  }
  return std::nullopt;
}

/// "reference to undefined node", suggesting a name defined so far; end_nodes() changes it to
/// "defined later" if a later node declares the name.
void ModelLoader::report_undefined(std::string_view name, const std::string& path) {
  if (!diags_.storing()) {
    error(path, "");  // counted only
    return;
  }
  std::vector<std::string> known;
  for (const Node* node : graph_->nodes()) known.push_back(node->name());
  for (const auto& [key, entry] : names_) {
    if (entry.state != NameEntry::State::kDeclared) known.push_back(key);
  }
  std::sort(known.begin(), known.end());
  size_t diag = diags_.error(
      DiagLocation::in_json(file_, path),
      "reference to undefined node '" + std::string(name) + "'" + did_you_mean(name, known));
  pending_refs_.push_back({diag, std::string(name)});
  pending_names_.emplace(std::string(name), UINT32_MAX);
}

void ModelLoader::load_output(JsonRef n, const std::string& path) {
  if (std::optional<JsonRef> kwargs = n.find("kwargs"); kwargs && !kwargs->empty()) {
    error(path + "/kwargs", "the output node takes no kwargs");
  }
  std::optional<JsonRef> args = n.find("args");
  if (!args || !args->is_array() || args->size() != 1) {
    error(path + "/args", "expected [[ref, …]] (a list of the graph's outputs) or [ref]");
    return;
  }
  JsonRef arg = args->at(0);
  std::vector<std::pair<JsonRef, std::string>> refs;
  if (arg.is_array()) {
    size_t i = 0;
    for (JsonRef ref : arg) refs.emplace_back(ref, path + "/args/0/" + std::to_string(i++));
  } else {
    refs.emplace_back(arg, path + "/args/0");
  }
  if (refs.empty()) {
    error(path + "/args/0", "the graph must have at least one output");
    return;
  }
  std::vector<Input> outputs;
  bool ok = true;
  for (const auto& [ref, ref_path] : refs) {
    bool quiet = false;
    std::optional<Node*> node = resolve_ref(ref, ref_path, &quiet);
    if (!node) {
      ok = false;
      continue;
    }
    outputs.push_back(Input::of(*node));
  }
  if (ok) graph_->set_output(std::move(outputs));
}

}  // namespace graft
