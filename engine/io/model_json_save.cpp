// The model.json writer (model_save.cpp writes the files). Output is canonical
// (docs/model-format.md, "Saving"): one node per line, operands positional up to the first
// attribute parameter, everything else by keyword, attributes only where they differ from the
// default, every node's meta. Loading a saved model and saving it again therefore gives the
// same bytes.
#include <map>
#include <optional>

#include "engine/io/json_values.h"
#include "engine/io/model_json.h"
#include "engine/io/safetensors_writer.h"
#include "engine/support/check.h"

namespace graft {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json ref(const Node* node) { return ordered_json{{"node", node->name()}}; }

ordered_json input_json(const Input& in) {
  if (in.is_node()) return ref(in.node);
  if (in.is_scalar()) {
    std::optional<nlohmann::json> value = scalar_to_json(in.scalar);
    GRAFT_CHECK(value) << "scalar " << in.scalar.value << " cannot be saved (check_saveable)";
    return ordered_json(*value);
  }
  return nullptr;
}

ordered_json meta_json(const Node& node) {
  ordered_json meta = ordered_json::object();
  if (const auto& type = node.type()) {
    ordered_json shape = ordered_json::array();
    for (Dim d : type->shape) {
      if (is_concrete(d)) {
        shape.push_back(d);
      } else {
        shape.push_back(dim_to_string(d));
      }
    }
    meta["shape"] = std::move(shape);
    meta["dtype"] = dtype_name(type->dtype);
  }
  if (!node.meta().provenance.empty()) meta["provenance"] = node.meta().provenance.str();
  return meta;
}

/// args/kwargs of a call_function node in the canonical call convention.
void call_json(const Node& node, ordered_json* out) {
  const OpSchema& schema = *node.schema();
  ordered_json args = ordered_json::array();
  ordered_json kwargs = ordered_json::object();
  bool positional = true;  // operands stay positional until the first attribute parameter
  size_t input = 0;        // next flattened input
  for (const Param& p : schema.params) {
    if (p.is_operand) {
      const OperandSpec& spec = schema.operands[p.index];
      ordered_json value;
      if (spec.variadic) {
        value = ordered_json::array();
        for (; input < node.inputs().size(); ++input) value.push_back(input_json(node.input(input)));
      } else {
        value = input_json(node.input(input++));
      }
      if (positional) {
        args.push_back(std::move(value));
      } else if (!value.is_null()) {
        kwargs[spec.name] = std::move(value);
      }
    } else {
      positional = false;
      const AttrSpec& spec = schema.attrs[p.index];
      const AttrValue& value = node.attrs()[p.index];
      if (!spec.has_default || !attr_equal(value, spec.default_value) ||
          value.index() != spec.default_value.index()) {
        kwargs[spec.name] = attr_to_json(value);
      }
    }
  }
  while (!args.empty() && args.back().is_null()) args.erase(args.size() - 1);
  if (!args.empty()) (*out)["args"] = std::move(args);
  if (!kwargs.empty()) (*out)["kwargs"] = std::move(kwargs);
}

ordered_json node_json(const Node& node) {
  ordered_json n;
  n["name"] = node.name();
  n["op"] = node_kind_name(node.kind());
  n["target"] = node.target();
  switch (node.kind()) {
    case NodeKind::kCallFunction:
      call_json(node, &n);
      break;
    case NodeKind::kOutput: {
      ordered_json outs = ordered_json::array();
      for (const Input& in : node.inputs()) outs.push_back(input_json(in));
      n["args"] = ordered_json::array({outs});
      return n;  // the output node has no meta of its own
    }
    default:
      break;
  }
  ordered_json meta = meta_json(node);
  if (!meta.empty()) n["meta"] = std::move(meta);
  return n;
}

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
      report("scalar operand " + scalar_to_string(in.scalar),
             in.scalar.is_int ? "is not a whole number within int64"
                              : "is not finite, which JSON cannot hold");
    }
  }
  if (!node.is(NodeKind::kCallFunction)) return ok;
  const OpSchema& schema = *node.schema();
  for (size_t i = 0; i < schema.attrs.size(); ++i) {
    std::string why;
    if (!attr_json_representable(node.attrs()[i], &why)) {
      report("attribute '" + schema.attrs[i].name + "':", why);
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

std::string model_to_json_text(const Model& model, const std::string& weights_file) {
  ordered_json head;
  head["format"] = "graft.model";
  head["version"] = 1;
  if (!weights_file.empty()) head["weights"] = weights_file;
  if (!model.metadata.empty()) head["metadata"] = ordered_json::parse(model.metadata.dump());
  // The header with indentation, then the nodes one per line: readable and diffable.
  std::string text = head.dump(2);
  text.erase(text.size() - 2);  // "\n}"
  text += ",\n  \"nodes\": [\n";
  bool first = true;
  for (const Node* node : model.graph->nodes()) {
    if (!first) text += ",\n";
    first = false;
    text += "    " + node_json(*node).dump();
  }
  text += "\n  ]\n}\n";
  return text;
}

std::string model_weights_bytes(const Model& model) {
  return serialize_safetensors(referenced_constants(*model.graph));
}

}  // namespace graft
