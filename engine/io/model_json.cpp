// The model.json loader. It reads the whole file before deciding anything, so one run reports
// every problem it can find, each with a JSON pointer; a node whose inputs already failed is
// skipped quietly instead of producing a cascade of follow-on errors.
#include "engine/io/model_json.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "engine/io/json_limits.h"
#include "engine/io/json_values.h"
#include "engine/io/safetensors.h"
#include "engine/io/strict_json.h"
#include "engine/ops/op_registry.h"
#include "engine/ops/shape_infer.h"
#include "engine/support/edit_distance.h"
#include "engine/support/input_file.h"

namespace graft {
namespace {

using json = nlohmann::json;

constexpr const char* kFormatName = "graft.model";
constexpr int kFormatVersion = 1;

const std::vector<std::string> kTopLevelKeys = {"format", "version", "weights", "metadata",
                                                "tensors", "nodes"};
const std::vector<std::string> kNodeKeys = {"name", "op", "target", "args", "kwargs", "meta"};
const std::vector<std::string> kNodeKinds = {"placeholder", "get_attr", "call_function", "output"};

class ModelLoader {
 public:
  ModelLoader(std::string display_name, std::string base_dir, const PathPolicy& policy,
              DiagnosticEngine& diags)
      : file_(std::move(display_name)),
        base_dir_(std::move(base_dir)),
        policy_(policy),
        diags_(diags) {}

  /// "model.json:LINE:COL" of byte `offset` of the file's text.
  DiagLocation at_offset(std::string_view text, size_t offset) const {
    auto [line, col] = json_line_col(text, offset);
    return DiagLocation::in_file(file_ + ":" + std::to_string(line) + ":" + std::to_string(col));
  }

  std::optional<Model> load(const std::string& text) {
    if (size_t deep = find_excess_nesting(text); deep != std::string::npos) {
      diags_.error(at_offset(text, deep),
                   "JSON nested more than " + std::to_string(kMaxJsonDepth) +
                       " levels deep; a model.json needs a handful");
      return std::nullopt;
    }
    text_ = text;
    JsonError bad;
    std::optional<json> parsed = parse_strict_json(text, &bad, &top_level_keys_);
    if (!parsed) {
      report_invalid_json(text, bad);
      return std::nullopt;
    }
    json root = std::move(*parsed);
    if (!root.is_object()) {
      error("", "expected a JSON object with \"format\", \"version\" and \"nodes\", got " +
                    std::string(root.type_name()));
      return std::nullopt;
    }
    check_keys(root, "", kTopLevelKeys, "top-level key");
    if (!check_header(root)) return std::nullopt;  // another format: nothing else is meaningful

    Model model;
    model.graph = std::make_unique<Graph>();
    graph_ = model.graph.get();
    if (root.contains("metadata")) {
      if (root["metadata"].is_object()) {
        model.metadata = root["metadata"];
      } else {
        error("/metadata", "expected an object, got " + std::string(root["metadata"].type_name()));
      }
    }
    load_weights(root);
    load_inline_tensors(root);
    load_nodes(root);
    if (diags_.has_errors()) return std::nullopt;
    return model;
  }

 private:
  // ** diagnostics **
  void error(const std::string& path, std::string message) {
    diags_.error(DiagLocation::in_json(file_, path), std::move(message));
  }

  void report_invalid_json(std::string_view text, const JsonError& bad) {
    DiagLocation at = bad.offset == std::string::npos ? DiagLocation::in_file(file_)
                                                      : at_offset(text, bad.offset);
    switch (bad.kind) {
      case JsonError::Kind::kSyntax:
        diags_.error(at, "invalid JSON: " + bad.reason);
        break;
      case JsonError::Kind::kNul:
        diags_.error(at, "invalid JSON: a NUL byte, which JSON text cannot contain");
        break;
      case JsonError::Kind::kDuplicateKey: {
        auto [line, col] = json_line_col(text, bad.first_offset);
        diags_.error(at, "duplicate key '" + bad.key + "' in " +
                             (bad.object_pointer.empty() ? std::string("the top-level object")
                                                         : bad.object_pointer) +
                             " (first given at " + std::to_string(line) + ":" +
                             std::to_string(col) + ")");
        break;
      }
    }
  }

  /// The JSON pointer of top-level key `key`, with the line:col of the key in front.
  DiagLocation top_level_location(const std::string& key) const {
    auto it = top_level_keys_.find(key);
    if (it == top_level_keys_.end()) return DiagLocation::in_json(file_, "/" + key);
    DiagLocation at = at_offset(text_, it->second);
    at.json_path = "/" + key;
    return at;
  }

  void check_keys(const json& object, const std::string& path,
                  const std::vector<std::string>& allowed, const char* what) {
    for (const auto& [key, value] : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        error(path + "/" + json_pointer_token(key),
              std::string("unknown ") + what + " '" + key + "'" + did_you_mean(key, allowed));
      }
    }
  }

  // ** header **
  bool check_header(const json& root) {
    bool ok = true;
    if (!root.contains("format")) {
      error("", "missing \"format\": expected \"" + std::string(kFormatName) + "\"");
      ok = false;
    } else if (root["format"] != kFormatName) {
      error("/format", "unsupported format " + root["format"].dump() + ": expected \"" +
                           kFormatName + "\"");
      ok = false;
    }
    if (!root.contains("version")) {
      error("", "missing \"version\": expected " + std::to_string(kFormatVersion));
      ok = false;
    } else if (!root["version"].is_number_integer() || root["version"] != kFormatVersion) {
      error("/version", "unsupported version " + root["version"].dump() +
                            ": this graft reads version " + std::to_string(kFormatVersion));
      ok = false;
    }
    return ok;
  }

  // ** constants **
  void load_weights(const json& root) {
    if (!root.contains("weights")) return;
    const json& w = root["weights"];
    if (!w.is_string() || w.get<std::string>().empty()) {
      error("/weights", "expected the path of a safetensors file, got " + w.dump());
      return;
    }
    // Inside the model's folder only: a model from elsewhere must not make graft read, and copy
    // into its output, any other file (FileConfinement).
    FileConfinement folder(base_dir_, policy_, "the model's folder");
    std::string problem;
    std::optional<std::string> path = folder.resolve(w.get_ref<const std::string&>(), &problem);
    if (!path) {
      diags_.error(top_level_location("weights"), std::move(problem));
      weights_failed_ = true;
      return;
    }
    std::optional<SafetensorsFile> file = read_safetensors(*path, diags_, &folder);
    if (!file) {
      weights_failed_ = true;
      return;
    }
    for (auto& [name, tensor] : file->tensors) graph_->constants().set(name, std::move(tensor));
  }

  void load_inline_tensors(const json& root) {
    if (!root.contains("tensors")) return;
    const json& tensors = root["tensors"];
    if (!tensors.is_object()) {
      error("/tensors", "expected an object of name -> {dtype, shape, data}, got " +
                            std::string(tensors.type_name()));
      return;
    }
    for (const auto& [name, t] : tensors.items()) {
      std::string path = "/tensors/" + json_pointer_token(name);
      if (name == kReservedConstantName) {
        error(path, "a tensor cannot be named '" + name +
                        "': safetensors reserves that name for a file's metadata");
        continue;
      }
      if (graph_->constants().contains(name)) {
        error(path, "tensor '" + name + "' is also in the weights file");
        continue;
      }
      if (std::optional<ConstantTensor> tensor = parse_inline_tensor(t, path)) {
        graph_->constants().set(name, std::move(*tensor));
      }
    }
  }

  std::optional<ConstantTensor> parse_inline_tensor(const json& t, const std::string& path) {
    if (!t.is_object()) {
      error(path, "expected {\"dtype\", \"shape\", \"data\"}, got " + std::string(t.type_name()));
      return std::nullopt;
    }
    check_keys(t, path, {"dtype", "shape", "data"}, "tensor key");
    std::optional<TensorType> type = parse_type(t, path);
    if (!type) return std::nullopt;
    if (!is_concrete(type->shape)) {
      error(path + "/shape", "a tensor's shape must be concrete, got " +
                                 shape_to_string(type->shape));
      return std::nullopt;
    }
    std::optional<int64_t> count = element_count(type->shape);
    if (!count) {
      error(path + "/shape", "shape " + shape_to_string(type->shape) + " has too many elements");
      return std::nullopt;
    }
    if (!t.contains("data") || !t["data"].is_array()) {
      error(path + "/data", "expected a flat list of " + std::to_string(*count) + " numbers");
      return std::nullopt;
    }
    const json& data = t["data"];
    if (static_cast<int64_t>(data.size()) != *count) {
      error(path + "/data", "shape " + shape_to_string(type->shape) + " needs " +
                                std::to_string(*count) + " values, got " +
                                std::to_string(data.size()));
      return std::nullopt;
    }
    size_t width = dtype_size(type->dtype);
    std::vector<std::byte> bytes(data.size() * width);
    for (size_t i = 0; i < data.size(); ++i) {
      const json& v = data[i];
      if (!v.is_number() && !v.is_boolean()) {
        error(path + "/data/" + std::to_string(i), "expected a number, got " + v.dump());
        return std::nullopt;
      }
      std::byte* out = bytes.data() + i * width;
      Stored stored = store_element(type->dtype, v, out);
      if (stored == Stored::kOutOfRange) {
        error(path + "/data/" + std::to_string(i),
              v.dump() + " is not a value of dtype " + dtype_name(type->dtype) +
                  (is_floating(type->dtype) ? " (out of range)" : " (a whole number in range)"));
        return std::nullopt;
      }
      if (stored == Stored::kUnsupportedDType) {
        error(path + "/dtype", std::string("inline tensors of dtype ") + dtype_name(type->dtype) +
                                   " are not supported; put them in the weights file");
        return std::nullopt;
      }
    }
    return ConstantTensor::owned(type->dtype, type->shape, std::move(bytes));
  }

  template <typename T>
  static void store(T value, std::byte* out) {
    std::memcpy(out, &value, sizeof(T));
  }

  /// The value of `v` as an integer in [lo, hi], or nullopt: a float counts when it is whole.
  /// Range checks come before any conversion, which is undefined for out-of-range values.
  static std::optional<int64_t> integer_in(const json& v, int64_t lo, int64_t hi) {
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    int64_t i = 0;
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(hi)) return std::nullopt;
      i = static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
      i = v.get<int64_t>();
    } else {
      double d = v.get<double>();
      // 2^63 is exact as a double; [-2^63, 2^63) converts without overflow.
      if (d != std::floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) {
        return std::nullopt;
      }
      i = static_cast<int64_t>(d);
    }
    if (i < lo || i > hi) return std::nullopt;
    return i;
  }

  template <typename T>
  static bool store_integer(const json& v, std::byte* out) {
    std::optional<int64_t> i =
        integer_in(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    if (i) store(static_cast<T>(*i), out);
    return i.has_value();
  }

  enum class Stored { kOk, kOutOfRange, kUnsupportedDType };

  static Stored store_element(DType dtype, const json& v, std::byte* out) {
    double d = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
    auto ok = [](bool stored) { return stored ? Stored::kOk : Stored::kOutOfRange; };
    switch (dtype) {
      case DType::kFloat32:
        if (std::fabs(d) > std::numeric_limits<float>::max()) return Stored::kOutOfRange;
        store(static_cast<float>(d), out);
        return Stored::kOk;
      case DType::kFloat64: store(d, out); return Stored::kOk;
      case DType::kInt64: return ok(store_integer<int64_t>(v, out));
      case DType::kInt32: return ok(store_integer<int32_t>(v, out));
      case DType::kInt16: return ok(store_integer<int16_t>(v, out));
      case DType::kInt8: return ok(store_integer<int8_t>(v, out));
      case DType::kUInt8: return ok(store_integer<uint8_t>(v, out));
      case DType::kBool: store(static_cast<uint8_t>(d != 0), out); return Stored::kOk;
      case DType::kFloat16:
      case DType::kBFloat16: return Stored::kUnsupportedDType;
    }
    return Stored::kUnsupportedDType;
  }

  // ** types (meta and inline tensors) **
  /// `allow_unknown`: "?" is a dim, the unknown size shape inference gives arithmetic on
  /// symbols (flatten of [N, 4] is [?]); the saver writes it in the meta of computed nodes.
  std::optional<TensorType> parse_type(const json& obj, const std::string& path,
                                       bool allow_unknown = false) {
    bool ok = true;
    TensorType type;
    if (!obj.contains("dtype") || !obj["dtype"].is_string()) {
      error(path + "/dtype", "expected a dtype name (" + all_dtype_names() + ")");
      ok = false;
    } else {
      std::string name = obj["dtype"].get<std::string>();
      if (std::optional<DType> d = parse_dtype(name)) {
        type.dtype = *d;
      } else {
        error(path + "/dtype", "unknown dtype '" + name + "' (known: " + all_dtype_names() + ")");
        ok = false;
      }
    }
    if (!obj.contains("shape") || !obj["shape"].is_array()) {
      error(path + "/shape", "expected a list of dims (non-negative ints or symbols like \"N\")");
      return std::nullopt;
    }
    const json& shape = obj["shape"];
    for (size_t i = 0; i < shape.size(); ++i) {
      const json& d = shape[i];
      if (d.is_number_integer() && d.get<int64_t>() >= 0) {
        type.shape.push_back(d.get<int64_t>());
      } else if (d.is_string() && !d.get<std::string>().empty() &&
                 (d.get<std::string>() != "?" || allow_unknown)) {
        type.shape.push_back(dim_symbol(d.get<std::string>()));
      } else {
        error(path + "/shape/" + std::to_string(i),
              "a dim is a non-negative int or a symbol such as \"N\", got " + d.dump());
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    if (!within_size_limit(type)) {
      error(path + "/shape", size_limit_message(type));
      return std::nullopt;
    }
    return type;
  }

  // ** nodes **
  void load_nodes(const json& root) {
    if (!root.contains("nodes")) {
      error("", "missing \"nodes\": the graph");
      return;
    }
    const json& nodes = root["nodes"];
    if (!nodes.is_array()) {
      error("/nodes", "expected an array of nodes, got " + std::string(nodes.type_name()));
      return;
    }
    if (nodes.empty()) {
      error("/nodes", "the graph is empty: it needs at least an output node");
      return;
    }
    // Every name first, so a reference to a later node can be told apart from a typo.
    for (size_t i = 0; i < nodes.size(); ++i) {
      const json& n = nodes[i];
      if (n.is_object() && n.contains("name") && n["name"].is_string()) {
        declared_.emplace(n["name"].get<std::string>(), i);  // keeps the first
      }
    }
    for (size_t i = 0; i < nodes.size(); ++i) load_node(nodes[i], i, nodes.size());
    if (graph_->output() == nullptr && !saw_output_) {
      error("/nodes", "the graph has no output node (the last node must have \"op\": \"output\")");
    }
  }

  void load_node(const json& n, size_t index, size_t count) {
    std::string path = "/nodes/" + std::to_string(index);
    if (!n.is_object()) {
      error(path, "expected a node object, got " + std::string(n.type_name()));
      return;
    }
    check_keys(n, path, kNodeKeys, "node key");
    if (!n.contains("name") || !n["name"].is_string() || n["name"].get<std::string>().empty()) {
      error(path + "/name", "every node needs a non-empty string \"name\"");
      return;
    }
    std::string name = n["name"].get<std::string>();
    if (defined_.count(name)) {
      error(path + "/name", "duplicate node name '" + name + "' (first defined at /nodes/" +
                                std::to_string(declared_.at(name)) + ")");
      return;
    }
    if (!n.contains("op") || !n["op"].is_string()) {
      error(path + "/op", "expected one of placeholder, get_attr, call_function, output");
      return;
    }
    std::string op = n["op"].get<std::string>();
    std::string target;
    if (n.contains("target")) {
      if (!n["target"].is_string()) {
        error(path + "/target", "expected a string, got " + n["target"].dump());
        return;
      }
      target = n["target"].get<std::string>();
    }
    Node* node = nullptr;
    if (op == "placeholder") {
      node = load_placeholder(n, path, name);
    } else if (op == "get_attr") {
      node = load_get_attr(n, path, name, target);
    } else if (op == "call_function") {
      node = load_call(n, path, name, target);
    } else if (op == "output") {
      saw_output_ = true;
      if (index + 1 != count) {
        error(path, "the output node must be the last node (found at index " +
                        std::to_string(index) + " of " + std::to_string(count) + ")");
        return;
      }
      load_output(n, path);
      defined_.insert(name);
      return;
    } else {
      error(path + "/op", "unknown node op '" + op + "'" + did_you_mean(op, kNodeKinds) +
                              " (expected placeholder, get_attr, call_function or output)");
    }
    defined_.insert(name);  // even when it failed: later references to it are not "undefined"
    if (node == nullptr) {
      failed_.insert(name);
      return;
    }
    if (node->name() != name) node_by_json_name_[name] = node;
  }

  void reject_args(const json& n, const std::string& path, const char* kind) {
    for (const char* key : {"args", "kwargs"}) {
      if (n.contains(key) && !n[key].empty()) {
        error(path + "/" + key, std::string("a ") + kind + " node takes no " + key);
      }
    }
  }

  Node* load_placeholder(const json& n, const std::string& path, const std::string& name) {
    reject_args(n, path, "placeholder");
    if (!n.contains("meta") || !n["meta"].is_object()) {
      error(path + "/meta", "a placeholder needs \"meta\": {\"shape\": [...], \"dtype\": ...}");
      return nullptr;
    }
    std::optional<TensorType> type = parse_meta(n["meta"], path + "/meta", /*required=*/true);
    if (!type) return nullptr;
    return graph_->add_placeholder(name, *type);
  }

  Node* load_get_attr(const json& n, const std::string& path, const std::string& name,
                      const std::string& target) {
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
      error(path + "/target", "no tensor named '" + target + "' in the weights" +
                                  did_you_mean(target, names));
      return nullptr;
    }
    Node* node = graph_->add_get_attr(name, target);
    if (n.contains("meta")) {
      std::optional<TensorType> declared = parse_meta(n["meta"], path + "/meta", false);
      if (declared && *declared != tensor->type()) {
        error(path + "/meta", "meta says " + type_to_string(*declared) + " but tensor '" + target +
                                  "' is " + type_to_string(tensor->type()));
      }
    }
    return node;
  }

  /// meta {shape, dtype, provenance}; the type is nullopt when absent (and not required).
  std::optional<TensorType> parse_meta(const json& meta, const std::string& path, bool required,
                                       bool allow_unknown = false) {
    if (!meta.is_object()) {
      error(path, "expected an object, got " + std::string(meta.type_name()));
      return std::nullopt;
    }
    check_keys(meta, path, {"shape", "dtype", "provenance"}, "meta key");
    if (!required && !meta.contains("shape") && !meta.contains("dtype")) return std::nullopt;
    return parse_type(meta, path, allow_unknown);
  }

  /// Resolves a node reference {"node": name}; reports and returns nullopt otherwise.
  /// `quiet_fail` is set when the referenced node itself failed to load (no new error).
  std::optional<Node*> resolve_ref(const json& v, const std::string& path, bool* quiet_fail) {
    if (!v.is_object() || v.size() != 1 || !v.contains("node") || !v["node"].is_string()) {
      error(path, "expected a node reference {\"node\": name}, got " + v.dump());
      return std::nullopt;
    }
    std::string name = v["node"].get<std::string>();
    if (failed_.count(name)) {
      *quiet_fail = true;
      return std::nullopt;
    }
    if (defined_.count(name)) {
      auto alias = node_by_json_name_.find(name);
      Node* node = alias != node_by_json_name_.end() ? alias->second : graph_->find(name);
      if (node == nullptr || node->is(NodeKind::kOutput)) {
        error(path, "'" + name + "' is the output node; it has no value");
        return std::nullopt;
      }
      return node;
    }
    auto later = declared_.find(name);
    if (later != declared_.end()) {
      error(path, "reference to node '" + name + "', which is defined later (at /nodes/" +
                      std::to_string(later->second) +
                      "): nodes must be in topological order, and a cycle has none");
      return std::nullopt;
    }
    std::vector<std::string> known(defined_.begin(), defined_.end());
    error(path, "reference to undefined node '" + name + "'" + did_you_mean(name, known));
    return std::nullopt;
  }

  void load_output(const json& n, const std::string& path) {
    if (n.contains("kwargs") && !n["kwargs"].empty()) {
      error(path + "/kwargs", "the output node takes no kwargs");
    }
    if (!n.contains("args") || !n["args"].is_array() || n["args"].size() != 1) {
      error(path + "/args", "expected [[ref, …]] (a list of the graph's outputs) or [ref]");
      return;
    }
    const json& arg = n["args"][0];
    std::vector<std::pair<const json*, std::string>> refs;
    if (arg.is_array()) {
      for (size_t i = 0; i < arg.size(); ++i) {
        refs.emplace_back(&arg[i], path + "/args/0/" + std::to_string(i));
      }
    } else {
      refs.emplace_back(&arg, path + "/args/0");
    }
    if (refs.empty()) {
      error(path + "/args/0", "the graph must have at least one output");
      return;
    }
    std::vector<Input> outputs;
    bool ok = true;
    for (const auto& [ref, ref_path] : refs) {
      bool quiet = false;
      std::optional<Node*> node = resolve_ref(*ref, ref_path, &quiet);
      if (!node) {
        ok = false;
        continue;
      }
      outputs.push_back(Input::of(*node));
    }
    if (ok) graph_->set_output(std::move(outputs));
  }

  // ** call_function: binding Python-convention args/kwargs to the schema **
  Node* load_call(const json& n, const std::string& path, const std::string& name,
                  const std::string& target) {
    const OpSchema* schema = OpRegistry::get().find(target);
    if (schema == nullptr) {
      error(path + "/target", "unknown op '" + target + "'" + OpRegistry::get().suggest(target) +
                                  " (`rewrite ops` lists them)");
      return nullptr;
    }
    json args = n.contains("args") ? n["args"] : json::array();
    json kwargs = n.contains("kwargs") ? n["kwargs"] : json::object();
    if (!args.is_array()) {
      error(path + "/args", "expected a list, got " + std::string(args.type_name()));
      return nullptr;
    }
    if (!kwargs.is_object()) {
      error(path + "/kwargs", "expected an object, got " + std::string(kwargs.type_name()));
      return nullptr;
    }
    // Which JSON value (and its path) each parameter gets.
    std::vector<const json*> given(schema->params.size(), nullptr);
    std::vector<std::string> given_path(schema->params.size());
    bool ok = true;
    if (args.size() > schema->params.size()) {
      error(path + "/args", schema->name + "() takes at most " +
                                std::to_string(schema->params.size()) + " arguments (" +
                                std::to_string(args.size()) + " given): " + schema->signature);
      return nullptr;
    }
    for (size_t i = 0; i < args.size(); ++i) {
      given[i] = &args[i];
      given_path[i] = path + "/args/" + std::to_string(i);
    }
    std::vector<std::string> param_names;
    for (const Param& p : schema->params) param_names.push_back(param_name(*schema, p));
    for (const auto& [key, value] : kwargs.items()) {
      auto it = std::find(param_names.begin(), param_names.end(), key);
      std::string kw_path = path + "/kwargs/" + json_pointer_token(key);
      if (it == param_names.end()) {
        error(kw_path, schema->name + "() has no parameter '" + key + "'" +
                           did_you_mean(key, param_names) + ": " + schema->signature);
        ok = false;
        continue;
      }
      size_t p = static_cast<size_t>(it - param_names.begin());
      if (given[p] != nullptr) {
        error(kw_path, schema->name + "() got parameter '" + key +
                           "' twice (positionally and by keyword)");
        ok = false;
        continue;
      }
      given[p] = &value;
      given_path[p] = kw_path;
    }
    if (!ok) return nullptr;

    std::vector<Input> inputs;
    std::vector<AttrValue> attrs = Graph::default_attrs(*schema);
    bool quiet = false;
    for (size_t p = 0; p < schema->params.size(); ++p) {
      const Param& param = schema->params[p];
      if (param.is_operand) {
        const OperandSpec& spec = schema->operands[param.index];
        if (!bind_operand(*schema, spec, given[p], given_path[p], path, &inputs, &quiet)) {
          ok = false;
        }
      } else {
        const AttrSpec& spec = schema->attrs[param.index];
        if (given[p] == nullptr) {
          if (!spec.has_default) {
            error(path, schema->name + "() is missing its argument '" + spec.name +
                            "': " + schema->signature);
            ok = false;
          }
          continue;
        }
        std::string err;
        std::optional<AttrValue> value = attr_from_json(*given[p], &err);
        if (value) value = coerce_attr(spec, *value, &err);
        if (!value) {
          error(given_path[p], schema->name + "(): bad value for '" + spec.name + "': " + err);
          ok = false;
          continue;
        }
        attrs[param.index] = std::move(*value);
      }
    }
    if (!ok) return nullptr;
    Node* node = graph_->add_call(*schema, std::move(inputs), std::move(attrs), name);
    infer_type(node, n, path);
    return node;
  }

  static std::string param_name(const OpSchema& schema, const Param& p) {
    return p.is_operand ? schema.operands[p.index].name : schema.attrs[p.index].name;
  }

  bool bind_operand(const OpSchema& schema, const OperandSpec& spec, const json* value,
                    const std::string& value_path, const std::string& node_path,
                    std::vector<Input>* inputs, bool* quiet) {
    if (value == nullptr || value->is_null()) {
      if (spec.optional || spec.variadic) {
        if (!spec.variadic) inputs->push_back(Input::none());
        if (spec.variadic && value == nullptr) {
          error(node_path, schema.name + "() is missing its argument '" + spec.name +
                               "': " + schema.signature);
          return false;
        }
        return true;
      }
      error(value == nullptr ? node_path : value_path,
            schema.name + "() is missing its tensor argument '" + spec.name +
                "': " + schema.signature);
      return false;
    }
    if (spec.variadic) {
      if (!value->is_array()) {
        error(value_path, "'" + spec.name + "' is a list of tensors [{\"node\": …}, …], got " +
                              value->dump());
        return false;
      }
      bool ok = true;
      for (size_t i = 0; i < value->size(); ++i) {
        std::optional<Node*> node =
            resolve_ref((*value)[i], value_path + "/" + std::to_string(i), quiet);
        if (node) {
          inputs->push_back(Input::of(*node));
        } else {
          ok = false;
        }
      }
      if (ok && value->empty()) {
        error(value_path, "'" + spec.name + "' needs at least one tensor");
        return false;
      }
      return ok;
    }
    if (value->is_number() && spec.allow_scalar) {
      std::string err;
      std::optional<Scalar> scalar = scalar_from_json(*value, &err);
      if (!scalar) {
        error(value_path, err);
        return false;
      }
      inputs->push_back(Input::of(*scalar));
      return true;
    }
    if (value->is_number() || value->is_boolean()) {
      error(value_path, "'" + spec.name + "' of " + schema.name +
                            "() is a tensor, got the literal " + value->dump());
      return false;
    }
    std::optional<Node*> node = resolve_ref(*value, value_path, quiet);
    if (!node) return false;
    inputs->push_back(Input::of(*node));
    return true;
  }

  void infer_type(Node* node, const json& n, const std::string& path) {
    for (const Input& in : node->inputs()) {
      if (in.is_node() && !in.node->type()) return;  // an earlier error left it untyped
    }
    std::string err;
    std::optional<TensorType> type = infer_node_type(*node, &err);
    if (!type) {
      error(path, "node '" + node->name() + "' (" + node->target() + "): " + err);
      return;
    }
    node->meta().set_type(type);
    if (!n.contains("meta")) return;
    std::optional<TensorType> declared =
        parse_meta(n["meta"], path + "/meta", false, /*allow_unknown=*/true);
    if (declared && !compatible(*declared, *type)) {
      error(path + "/meta", "meta says " + type_to_string(*declared) +
                                " but the inputs give " + type_to_string(*type));
    }
    if (n["meta"].is_object() && n["meta"].contains("provenance")) {
      const json& p = n["meta"]["provenance"];
      if (p.is_string()) {
        node->meta().provenance = SharedString(p.get<std::string>());
      } else {
        error(path + "/meta/provenance", "expected a string, got " + p.dump());
      }
    }
  }

  /// A declared type agrees with the inferred one when the dtypes match and every dim
  /// matches, where an unknown dim ("?", arithmetic on symbols) on either side accepts
  /// anything.
  static bool compatible(const TensorType& declared, const TensorType& inferred) {
    if (declared.dtype != inferred.dtype || declared.rank() != inferred.rank()) return false;
    for (size_t i = 0; i < declared.shape.size(); ++i) {
      if (inferred.shape[i] == unknown_dim() || declared.shape[i] == unknown_dim()) continue;
      if (declared.shape[i] != inferred.shape[i]) return false;
    }
    return true;
  }

  std::string file_;
  std::string base_dir_;
  const PathPolicy& policy_;
  DiagnosticEngine& diags_;
  std::string_view text_;                          // the file's text, while loading
  std::map<std::string, size_t> top_level_keys_;  // key -> offset, for line:col
  Graph* graph_ = nullptr;
  bool weights_failed_ = false;
  bool saw_output_ = false;
  std::unordered_map<std::string, size_t> declared_;  // every node name -> its first index
  std::set<std::string> defined_;                     // names loaded so far (in order)
  std::unordered_set<std::string> failed_;            // names whose node was rejected
  std::unordered_map<std::string, Node*> node_by_json_name_;  // when the graph renamed one
};

}  // namespace

std::optional<Model> load_model_from_string(const std::string& text,
                                            const std::string& display_name,
                                            const std::string& base_dir, DiagnosticEngine& diags,
                                            const PathPolicy& policy) {
  int errors_before = diags.error_count();
  std::optional<Model> model = ModelLoader(display_name, base_dir, policy, diags).load(text);
  if (diags.error_count() != errors_before) return std::nullopt;
  return model;
}

std::optional<Model> load_model(const std::string& path, DiagnosticEngine& diags,
                                const PathPolicy& policy) {
  static constexpr InputFileKind kModelJson{"model.json file", kMaxModelJsonBytes,
                                            "constants belong in the safetensors weights file"};
  std::string error;
  std::optional<std::string> text = read_input_file(path, kModelJson, &error);
  if (!text) {
    diags.error(DiagLocation::in_file(path), error);
    return std::nullopt;
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  std::optional<Model> model = load_model_from_string(*text, path, dir.empty() ? "." : dir,
                                                      diags, policy);
  if (model) model->path = path;
  return model;
}

}  // namespace graft
