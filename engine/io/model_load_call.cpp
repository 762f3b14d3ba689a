// call_function nodes of model.json: binding Python-convention args and kwargs to the op's
// schema (docs/model-format.md, "Argument values"), then shape inference, checked against the
// node's declared meta.
#include <algorithm>

#include "engine/io/json_values.h"
#include "engine/io/model_loader.h"
#include "engine/ops/op_registry.h"
#include "engine/ops/symbolic_int.h"
#include "engine/support/edit_distance.h"

namespace graft {
namespace {

/// A declared type agrees with the inferred one when the dtypes match and every dim matches,
/// where an unknown dim ("?", arithmetic on symbols) on either side accepts anything.
bool compatible(const TensorType& declared, const TensorType& inferred) {
  if (declared.dtype != inferred.dtype || declared.rank() != inferred.rank()) return false;
  for (size_t i = 0; i < declared.shape.size(); ++i) {
    if (inferred.shape[i] == unknown_dim() || declared.shape[i] == unknown_dim()) continue;
    if (declared.shape[i] != inferred.shape[i]) return false;
  }
  return true;
}

const std::string& param_name(const OpSchema& schema, const Param& p) {
  return p.is_operand ? schema.operands[p.index].name : schema.attrs[p.index].name;
}

}  // namespace

Node* ModelLoader::load_call(JsonRef n, const std::string& path, std::string_view name,
                             std::string_view target) {
  const OpSchema* schema = OpRegistry::get().find(target);
  if (schema == nullptr) {
    error(path + "/target", "unknown op '" + std::string(target) + "'" +
                                OpRegistry::get().suggest(target) + " (`rewrite ops` lists them)");
    return nullptr;
  }
  std::vector<Given>& given = given_;
  if (!bind_arguments(*schema, n, path, &given)) return nullptr;

  std::vector<Input>& inputs = inputs_;
  inputs.clear();
  std::vector<AttrValue> attrs = Graph::default_attrs(*schema);
  bool ok = true;
  bool quiet = false;
  for (size_t p = 0; p < schema->params.size(); ++p) {
    const Param& param = schema->params[p];
    if (param.is_operand) {
      const OperandSpec& spec = schema->operands[param.index];
      if (!bind_operand(*schema, spec, given[p], path, &inputs, &quiet)) ok = false;
      continue;
    }
    const AttrSpec& spec = schema->attrs[param.index];
    if (!given[p].value) {
      if (!spec.has_default) {
        error(path, schema->name + "() is missing its argument '" + spec.name +
                        "': " + schema->signature);
        ok = false;
      }
      continue;
    }
    std::string err;
    const nlohmann::json j = given[p].value->to_json();
    std::optional<AttrValue> value;
    int64_t bad_item = -1;
    if (spec.symbolic && spec.type == AttrType::kInts && j.is_array()) {
      // A SymInt[] list ([-1, "T", 12, 64]): a bad item is reported at its own pointer.
      value = sym_ints_from_json(j, &err, &bad_item);
    } else if (spec.symbolic && j.is_string() && parse_symbolic_int(j.get<std::string>())) {
      // A symbol ("T") or a sum of multiples of symbols ("T-1") where the schema declares
      // SymInt: kept as written (coerce_attr checks that only symbolic parameters take one).
      value = AttrValue{j.get<std::string>()};
    } else {
      value = attr_from_json(j, spec.type, &err);
    }
    if (value) value = coerce_attr(spec, *value, &err);
    if (!value) {
      std::string at = given_path(path, given[p]);
      if (bad_item >= 0) at += "/" + std::to_string(bad_item);
      error(at, schema->name + "(): bad value for '" + spec.name + "': " + err);
      ok = false;
      continue;
    }
    attrs[param.index] = std::move(*value);
  }
  if (!ok) return nullptr;
  Node* node = graph_->add_call(*schema, inputs, std::move(attrs), name);
  infer_type(node, n, path);
  return node;
}

/// Which argument each parameter gets: `args` in order, then `kwargs` by name (nlohmann's key
/// order, in which errors were always reported).
bool ModelLoader::bind_arguments(const OpSchema& schema, JsonRef n, const std::string& path,
                                 std::vector<Given>* given) {
  std::optional<JsonRef> args = n.find("args");
  std::optional<JsonRef> kwargs = n.find("kwargs");
  if (args && !args->is_array()) {
    error(path + "/args", "expected a list, got " + std::string(args->type_name()));
    return false;
  }
  if (kwargs && !kwargs->is_object()) {
    error(path + "/kwargs", "expected an object, got " + std::string(kwargs->type_name()));
    return false;
  }
  given->assign(schema.params.size(), Given{});
  if (args && args->size() > schema.params.size()) {
    error(path + "/args", schema.name + "() takes at most " + std::to_string(schema.params.size()) +
                              " arguments (" + std::to_string(args->size()) +
                              " given): " + schema.signature);
    return false;
  }
  if (args) {
    size_t i = 0;
    for (JsonRef arg : *args) {
      (*given)[i].value = arg;
      (*given)[i].position = i;
      ++i;
    }
  }
  if (!kwargs || kwargs->empty()) return true;
  bool ok = true;
  for (const auto& member : kwargs->sorted_members()) {
    std::string_view key = member.first;  // not a binding: clang 14 lambdas cannot capture one
    JsonRef value = member.second;
    auto it = std::find_if(schema.params.begin(), schema.params.end(),
                           [&](const Param& p) { return param_name(schema, p) == key; });
    Given g{value, /*keyword=*/true, 0, key};
    if (it == schema.params.end()) {
      std::vector<std::string> names;
      for (const Param& p : schema.params) names.push_back(param_name(schema, p));
      error(given_path(path, g), schema.name + "() has no parameter '" + std::string(key) + "'" +
                                     did_you_mean(key, names) + ": " + schema.signature);
      ok = false;
      continue;
    }
    Given& slot = (*given)[static_cast<size_t>(it - schema.params.begin())];
    if (slot.value) {
      error(given_path(path, g), schema.name + "() got parameter '" + std::string(key) +
                                     "' twice (positionally and by keyword)");
      ok = false;
      continue;
    }
    slot = g;
  }
  return ok;
}

std::string ModelLoader::given_path(const std::string& node_path, const Given& g) const {
  return g.keyword ? node_path + "/kwargs/" + json_pointer_token(std::string(g.key))
                   : node_path + "/args/" + std::to_string(g.position);
}

bool ModelLoader::bind_operand(const OpSchema& schema, const OperandSpec& spec, const Given& given,
                               const std::string& node_path, std::vector<Input>* inputs,
                               bool* quiet) {
  if (!given.value || given.value->is_null()) {
    if (spec.optional || spec.variadic) {
      if (!spec.variadic) inputs->push_back(Input::none());
      if (spec.variadic && !given.value) {
        error(node_path,
              schema.name + "() is missing its argument '" + spec.name + "': " + schema.signature);
        return false;
      }
      return true;
    }
    error(
        given.value ? given_path(node_path, given) : node_path,
        schema.name + "() is missing its tensor argument '" + spec.name + "': " + schema.signature);
    return false;
  }
  JsonRef value = *given.value;
  if (spec.variadic) {
    if (!value.is_array()) {
      error(given_path(node_path, given),
            "'" + spec.name + "' is a list of tensors [{\"node\": …}, …], got " + value.dump());
      return false;
    }
    bool ok = true;
    size_t i = 0;
    for (JsonRef element : value) {
      std::optional<Node*> node =
          resolve_ref(element, given_path(node_path, given) + "/" + std::to_string(i++), quiet);
      if (node) {
        inputs->push_back(Input::of(*node));
      } else {
        ok = false;
      }
    }
    if (ok && value.empty()) {
      error(given_path(node_path, given), "'" + spec.name + "' needs at least one tensor");
      return false;
    }
    return ok;
  }
  if (value.is_string() && spec.allow_scalar && !nonfinite_from_string(value.str())) {
    error(given_path(node_path, given),
          "expected a node reference {\"node\": name} or a number, got " + value.dump() +
              kNonfiniteHint);
    return false;
  }
  if ((value.is_number() || value.is_string()) && spec.allow_scalar) {
    std::string err;
    std::optional<Scalar> scalar = scalar_from_json(value.to_json(), &err);
    if (!scalar) {
      error(given_path(node_path, given), err);
      return false;
    }
    inputs->push_back(Input::of(*scalar));
    return true;
  }
  if (value.is_number() || value.is_boolean()) {
    error(given_path(node_path, given), "'" + spec.name + "' of " + schema.name +
                                            "() is a tensor, got the literal " + value.dump());
    return false;
  }
  std::optional<Node*> node = resolve_ref(value, given_path(node_path, given), quiet);
  if (!node) return false;
  inputs->push_back(Input::of(*node));
  return true;
}

void ModelLoader::infer_type(Node* node, JsonRef n, const std::string& path) {
  for (const Input& in : node->inputs()) {
    if (in.is_node() && !in.node->type()) return;  // an earlier error left it untyped
  }
  std::string err;
  const TensorType* type = nullptr;
  TypeMemo& memo = type_memos_.try_emplace(node->schema(), /*attrs_interned=*/true).first->second;
  if (!memo.infer(*node, &type, &err)) {
    error(path, "node '" + node->name() + "' (" + node->target() + "): " + err);
    return;
  }
  node->meta().type = type;
  std::optional<JsonRef> meta = n.find("meta");
  if (!meta) return;
  std::optional<TensorType> declared =
      parse_meta(*meta, path + "/meta", false, /*allow_unknown=*/true);
  if (declared && !compatible(*declared, *type)) {
    error(path + "/meta", "meta says " + type_to_string(*declared) + " but the inputs give " +
                              type_to_string(*type));
  }
  if (!meta->is_object()) return;
  if (std::optional<JsonRef> p = meta->find("provenance")) {
    if (p->is_string()) {
      auto it = provenances_.find(p->str());  // one string per rule, shared by its nodes
      if (it == provenances_.end()) {
        it = provenances_.emplace(std::string(p->str()), SharedString(std::string(p->str()))).first;
      }
      node->meta().provenance = it->second;
    } else {
      error(path + "/meta/provenance", "expected a string, got " + p->dump());
    }
  }
}

}  // namespace graft
