// Input binding for `rewrite run` / `rewrite bench`.
#include "tools/rewrite/run_util.h"

#include "engine/support/edit_distance.h"
#include "eval/npy.h"

namespace graft::cli {

bool parse_input_flags(const std::vector<std::string>& flags,
                       std::map<std::string, std::string>* files, DiagnosticEngine& diags) {
  for (const std::string& flag : flags) {
    size_t eq = flag.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size()) {
      diags.error({}, "--input '" + flag + "' must be NAME=FILE.npy");
      return false;
    }
    if (!files->emplace(flag.substr(0, eq), flag.substr(eq + 1)).second) {
      diags.error({}, "--input gives '" + flag.substr(0, eq) + "' twice");
      return false;
    }
  }
  return true;
}

std::optional<std::map<std::string, eval::Tensor>> bind_inputs(const Graph& graph,
                                                                  const RunInputs& inputs,
                                                                  runtime::CompileOptions& options,
                                                                  DiagnosticEngine& diags) {
  std::vector<std::string> names;
  for (Node* p : graph.placeholders()) names.push_back(p->name());
  std::map<std::string, eval::Tensor> tensors;
  for (const auto& [name, path] : inputs.files) {
    if (graph.find(name) == nullptr || !graph.find(name)->is(NodeKind::kPlaceholder)) {
      diags.error({}, "--input names '" + name + "', which is not an input of the model" +
                          did_you_mean(name, names));
      return std::nullopt;
    }
    std::optional<eval::Tensor> t = eval::read_npy(path, diags);
    if (!t) return std::nullopt;
    options.shapes.inputs[name] = t->shape();
    tensors.emplace(name, std::move(*t));
  }
  // Symbolic leading dims are the batch: --batch, or 1. Other symbols must be bound by an
  // input file (compile() reports them otherwise).
  for (Node* p : graph.placeholders()) {
    if (tensors.count(p->name()) || !p->type() || p->type()->shape.empty()) continue;
    Dim lead = p->type()->shape[0];
    if (!is_concrete(lead) && dim_to_string(lead) != "?") {
      options.shapes.symbols.emplace(dim_to_string(lead), inputs.batch.value_or(1));
    } else if (inputs.batch && !is_concrete(lead)) {
      Shape s = p->type()->shape;
      s[0] = *inputs.batch;
      options.shapes.inputs[p->name()] = s;
    }
  }
  return tensors;
}

std::vector<eval::Tensor> make_inputs(const runtime::Executable& exe,
                                         const std::map<std::string, eval::Tensor>& files,
                                         uint64_t seed) {
  std::vector<eval::Tensor> result;
  for (size_t i = 0; i < exe.inputs().size(); ++i) {
    const runtime::TensorInfo& info = exe.inputs()[i];
    auto it = files.find(info.name);
    result.push_back(it != files.end() ? it->second
                                       : eval::Tensor::random_of(info.dtype, info.shape, seed + i));
  }
  return result;
}

}  // namespace graft::cli
