// The model.json writer (model_save.cpp writes the files). Output is canonical
// (docs/model-format.md, "Saving"): one node per line, operands positional up to the first
// attribute parameter, everything else by keyword, attributes only where they differ from the
// default, every node's meta. Loading a saved model and saving it again therefore gives the
// same bytes.
#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include "engine/io/json_values.h"
#include "engine/io/model_json.h"
#include "engine/io/safetensors_writer.h"
#include "engine/support/check.h"

namespace graft {
namespace {

using ordered_json = nlohmann::ordered_json;

/// The constants live get_attr nodes read that are buffers, sorted: model.json's "buffers".
std::vector<std::string> buffer_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node* node : graph.nodes()) {
    if (!node->is(NodeKind::kGetAttr)) continue;
    const ConstantTensor* t = graph.constant(*node);
    if (t != nullptr && t->buffer) names.push_back(node->target());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// Writes model.json text into a buffer handed to a sink a megabyte at a time. The bytes are
/// those of nlohmann's dump() of each node as an ordered_json, written directly, and the types
/// and provenances many nodes share are formatted once.
class ModelJsonWriter {
 public:
  explicit ModelJsonWriter(ByteSink& sink) : sink_(sink) {}

  bool write(const Model& model, const std::string& weights_file);

 private:
  static constexpr size_t kChunk = size_t{1} << 20;

  bool flush() {
    bool ok = buffer_.empty() || sink_.write(buffer_);
    buffer_.clear();
    return ok;
  }
  void node(const Node& node);
  void input(const Input& in);
  void call(const Node& node);
  void meta(const Node& node);
  const std::string& type_text(const TensorType* type);

  ByteSink& sink_;
  std::string buffer_;
  std::unordered_map<const TensorType*, std::string> types_;         // "shape":[…],"dtype":"…"
  std::unordered_map<const std::string*, std::string> provenances_;  // "provenance":"…"
};

bool ModelJsonWriter::write(const Model& model, const std::string& weights_file) {
  ordered_json head;
  head["format"] = "graft.model";
  head["version"] = 1;
  if (!weights_file.empty()) head["weights"] = weights_file;
  if (!model.metadata.empty()) head["metadata"] = ordered_json::parse(model.metadata.dump());
  if (std::vector<std::string> buffers = buffer_names(*model.graph); !buffers.empty()) {
    head["buffers"] = buffers;
  }
  // The header with indentation, then the nodes one per line: readable and diffable.
  buffer_ = head.dump(2);
  buffer_.erase(buffer_.size() - 2);  // "\n}"
  buffer_ += ",\n  \"nodes\": [\n";
  bool first = true;
  for (const Node* n : model.graph->nodes()) {
    if (!first) buffer_ += ",\n";
    first = false;
    buffer_ += "    ";
    node(*n);
    if (buffer_.size() >= kChunk && !flush()) return false;
  }
  buffer_ += "\n  ]\n}\n";
  return flush();
}

void ModelJsonWriter::node(const Node& node) {
  buffer_ += "{\"name\":";
  append_json_string(buffer_, node.name());
  buffer_ += ",\"op\":\"";
  buffer_ += node_kind_name(node.kind());
  buffer_ += "\",\"target\":";
  append_json_string(buffer_, node.target());
  if (node.is(NodeKind::kOutput)) {  // no meta of its own
    buffer_ += ",\"args\":[[";
    for (size_t i = 0; i < node.inputs().size(); ++i) {
      if (i > 0) buffer_ += ',';
      input(node.input(i));
    }
    buffer_ += "]]}";
    return;
  }
  if (node.is(NodeKind::kCallFunction)) call(node);
  meta(node);
  buffer_ += '}';
}

void ModelJsonWriter::input(const Input& in) {
  if (in.is_node()) {
    buffer_ += "{\"node\":";
    append_json_string(buffer_, in.node->name());
    buffer_ += '}';
  } else if (in.is_scalar()) {
    std::optional<nlohmann::json> value = scalar_to_json(in.scalar);
    GRAFT_CHECK(value) << "scalar " << in.scalar.value << " cannot be saved (check_saveable)";
    buffer_ += value->dump();
  } else {
    buffer_ += "null";
  }
}

/// args and kwargs in the canonical call convention: operands stay positional until the first
/// attribute parameter (trailing Nones dropped), the rest go by keyword, attributes only where
/// they differ from their defaults.
void ModelJsonWriter::call(const Node& node) {
  const OpSchema& schema = *node.schema();
  std::span<const Input> inputs = node.inputs();
  size_t first_attr = 0;
  while (first_attr < schema.params.size() && schema.params[first_attr].is_operand) ++first_attr;
  // An operand takes one input, a variadic one (the last operand) the rest, and is a list.
  auto width = [&](const OperandSpec& spec, size_t at) {
    return spec.variadic ? inputs.size() - at : 1;
  };
  size_t args = 0;  // positional operands written: up to the last that is not None
  for (size_t p = 0, at = 0; p < first_attr; ++p) {
    const OperandSpec& spec = schema.operands[schema.params[p].index];
    if (spec.variadic || !inputs[at].is_none()) args = p + 1;
    at += width(spec, at);
  }
  size_t at = 0;  // next input
  auto operand = [&](const OperandSpec& spec) {
    if (!spec.variadic) return input(inputs[at++]);
    buffer_ += '[';
    for (size_t first = at; at < inputs.size(); ++at) {
      if (at > first) buffer_ += ',';
      input(inputs[at]);
    }
    buffer_ += ']';
  };
  for (size_t p = 0; p < first_attr; ++p) {
    const OperandSpec& spec = schema.operands[schema.params[p].index];
    if (p >= args) {
      at += width(spec, at);
      continue;
    }
    buffer_ += p == 0 ? ",\"args\":[" : ",";
    operand(spec);
  }
  if (args > 0) buffer_ += ']';
  bool kwargs = false;
  auto key = [&](const std::string& name) {
    buffer_ += kwargs ? "," : ",\"kwargs\":{";
    kwargs = true;
    append_json_string(buffer_, name);
    buffer_ += ':';
  };
  for (size_t p = first_attr; p < schema.params.size(); ++p) {
    const Param& param = schema.params[p];
    if (param.is_operand) {
      const OperandSpec& spec = schema.operands[param.index];
      if (!spec.variadic && inputs[at].is_none()) {
        ++at;
        continue;
      }
      key(spec.name);
      operand(spec);
      continue;
    }
    const AttrSpec& spec = schema.attrs[param.index];
    const AttrValue& value = node.attrs()[param.index];
    if (!spec.has_default || !attr_equal(value, spec.default_value) ||
        value.index() != spec.default_value.index()) {
      key(spec.name);
      buffer_ += attr_to_json(value).dump();
    }
  }
  if (kwargs) buffer_ += '}';
}

void ModelJsonWriter::meta(const Node& node) {
  const TensorType* type = node.type();
  const SharedString& provenance = node.meta().provenance;
  if (type == nullptr && provenance.empty()) return;
  buffer_ += ",\"meta\":{";
  if (type != nullptr) buffer_ += type_text(type);
  if (!provenance.empty()) {
    auto [it, added] = provenances_.try_emplace(&provenance.str());
    if (added) {
      it->second = "\"provenance\":";
      append_json_string(it->second, provenance.str());
    }
    if (type != nullptr) buffer_ += ',';
    buffer_ += it->second;
  }
  buffer_ += '}';
}

/// "shape":[…],"dtype":"…" of a type (unique_type()'s: equal types are one object).
const std::string& ModelJsonWriter::type_text(const TensorType* type) {
  auto [it, added] = types_.try_emplace(type);
  std::string& text = it->second;
  if (!added) return text;
  text = "\"shape\":[";
  for (size_t i = 0; i < type->shape.size(); ++i) {
    if (i > 0) text += ',';
    Dim d = type->shape[i];
    if (is_concrete(d)) {
      append_json_integer(text, d);
    } else {
      append_json_string(text, dim_to_string(d));
    }
  }
  text += "],\"dtype\":";
  append_json_string(text, dtype_name(type->dtype));
  return text;
}

/// Collects the text in memory (model_to_json_text).
class StringSink : public ByteSink {
 public:
  bool write(std::string_view bytes) override {
    text.append(bytes);
    return true;
  }
  std::string text;
};

/// Reports the values of `node` that model.json cannot hold exactly.
bool check_node_saveable(const Node& node, const std::string& path, DiagnosticEngine& diags) {
  bool ok = true;
  auto report = [&](const std::string& what, const std::string& why) {
    diags.error(DiagLocation::in_file(path),
                "cannot save node '" + node.name() + "': " + what + " " + why);
    ok = false;
  };
  for (const Input& in : node.inputs()) {
    if (in.is_scalar() && !scalar_to_json(in.scalar)) {
      report("scalar operand " + scalar_to_string(in.scalar), "is not a whole number within int64");
    }
  }
  return ok;
}

}  // namespace

std::map<std::string, ConstantTensor> referenced_constants(const Graph& graph) {
  std::map<std::string, ConstantTensor> used;
  for (const Node* node : graph.nodes()) {
    if (!node->is(NodeKind::kGetAttr)) continue;
    if (const ConstantTensor* t = graph.constant(*node)) {
      used.emplace(node->target(), *t);
    }
  }
  return used;
}

bool check_saveable(const Model& model, const std::string& path, DiagnosticEngine& diags) {
  bool ok = true;
  for (const Node* node : model.graph->nodes()) {
    ok = check_node_saveable(*node, path, diags) && ok;
    if (node->is(NodeKind::kGetAttr) && node->target() == kReservedConstantName) {
      diags.error(DiagLocation::in_file(path),
                  "cannot save node '" + node->name() + "': its constant is named '" +
                      node->target() + "', which safetensors reserves for a file's metadata");
      ok = false;
    }
  }
  return ok;
}

bool write_model_json(const Model& model, const std::string& weights_file, ByteSink& sink) {
  return ModelJsonWriter(sink).write(model, weights_file);
}

std::string model_to_json_text(const Model& model, const std::string& weights_file) {
  StringSink sink;
  (void)write_model_json(model, weights_file, sink);  // a StringSink never fails
  return std::move(sink.text);
}

std::string model_weights_bytes(const Model& model) {
  return serialize_safetensors(referenced_constants(*model.graph));
}

}  // namespace graft
