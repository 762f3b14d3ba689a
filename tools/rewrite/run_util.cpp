// Input binding for `rewrite run` / `rewrite bench`.
#include "tools/rewrite/run_util.h"

#include <charconv>
#include <set>

#include "engine/support/edit_distance.h"
#include "eval/npy.h"

namespace graft::cli {
namespace {

/// "x, ids" for messages.
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// The symbols in the placeholders' declared shapes and in attributes, in order of first
/// appearance.
std::vector<std::string> input_symbols(const Graph& graph) {
  std::vector<std::string> symbols;
  auto add = [&](const std::string& name) {
    if (std::find(symbols.begin(), symbols.end(), name) == symbols.end()) symbols.push_back(name);
  };
  for (Node* p : graph.placeholders()) {
    if (!p->type()) continue;
    for (Dim d : p->type()->shape) {
      if (!is_concrete(d) && dim_to_string(d) != "?") add(dim_to_string(d));
    }
  }
  // A symbol only an attribute names (slice's end=T) is bound by --dim as well.
  for (Node* n : graph.nodes()) {
    if (n->schema() == nullptr) continue;
    for (size_t i = 0; i < n->schema()->attrs.size(); ++i) {
      for (const std::string& s : attr_symbols(n->schema()->attrs[i], n->attrs()[i])) add(s);
    }
  }
  return symbols;
}

/// Checks a file's tensor against the input's declared dtype and rank (the sizes are checked
/// when the shapes are bound, with the symbols).
bool check_input_file(const Node& p, const eval::Tensor& t, const std::string& path,
                      DiagnosticEngine& diags) {
  if (!p.type()) return true;
  if (t.dtype() != p.type()->dtype) {
    diags.error(DiagLocation::in_file(path),
                std::string("holds ") + dtype_name(t.dtype()) + " values, but input '" +
                    p.name() + "' is " + type_to_string(*p.type()));
    return false;
  }
  if (t.rank() != p.type()->rank()) {
    diags.error(DiagLocation::in_file(path),
                "has shape " + shape_to_string(t.shape()) + " (rank " + std::to_string(t.rank()) +
                    "), but input '" + p.name() + "' is " + type_to_string(*p.type()));
    return false;
  }
  return true;
}

}  // namespace

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

bool parse_dim_flags(const std::vector<std::string>& flags, std::map<std::string, int64_t>* dims,
                     DiagnosticEngine& diags) {
  for (const std::string& flag : flags) {
    size_t eq = flag.find('=');
    int64_t value = -1;
    const char* begin = flag.data() + (eq == std::string::npos ? flag.size() : eq + 1);
    const char* end = flag.data() + flag.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (eq == std::string::npos || eq == 0 || begin == end || ec != std::errc() || ptr != end ||
        value < 0) {
      diags.error({}, "--dim '" + flag + "' must be SYMBOL=N with N a non-negative integer");
      return false;
    }
    if (!dims->emplace(flag.substr(0, eq), value).second) {
      diags.error({}, "--dim gives '" + flag.substr(0, eq) + "' twice");
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
  const std::vector<std::string> symbols = input_symbols(graph);
  for (const auto& [symbol, size] : inputs.dims) {
    if (std::find(symbols.begin(), symbols.end(), symbol) == symbols.end()) {
      diags.error({}, "--dim names '" + symbol + "', which is not a symbol of the model's " +
                          "inputs or attributes (" + (symbols.empty() ? "it has none" : "its symbols: " + join(symbols)) +
                          ")");
      return std::nullopt;
    }
    options.shapes.symbols[symbol] = size;
  }
  std::map<std::string, eval::Tensor> tensors;
  for (const auto& [name, path] : inputs.files) {
    const Node* p = graph.find(name);
    if (p == nullptr || !p->is(NodeKind::kPlaceholder)) {
      diags.error({}, "--input names '" + name + "', which is not an input of the model (its " +
                          "inputs: " + join(names) + ")" + did_you_mean(name, names));
      return std::nullopt;
    }
    std::optional<eval::Tensor> t = eval::read_npy(path, diags);
    if (!t || !check_input_file(*p, *t, path, diags)) return std::nullopt;
    options.shapes.inputs[name] = t->shape();
    tensors.emplace(name, std::move(*t));
  }
  // The symbols the files' shapes bind (compile() checks that the files agree).
  std::set<std::string> bound_by_files;
  for (const auto& [name, t] : tensors) {
    if (const Node* p = graph.find(name); p->type()) {
      for (Dim d : p->type()->shape) bound_by_files.insert(dim_to_string(d));
    }
  }
  // Symbolic leading dims are the batch: --dim, else a file's, else --batch, else 1. Other
  // symbols must be bound by --dim or an input file (compile() reports them otherwise).
  for (Node* p : graph.placeholders()) {
    if (tensors.count(p->name()) || !p->type() || p->type()->shape.empty()) continue;
    Dim lead = p->type()->shape[0];
    if (!is_concrete(lead) && dim_to_string(lead) != "?") {
      if (bound_by_files.count(dim_to_string(lead))) continue;
      options.shapes.symbols.emplace(dim_to_string(lead), inputs.batch.value_or(1));
    } else if (inputs.batch && !is_concrete(lead)) {
      Shape s = p->type()->shape;
      s[0] = *inputs.batch;
      options.shapes.inputs[p->name()] = s;
    }
  }
  return tensors;
}

std::map<std::string, int64_t> index_bounds(const Graph& graph) {
  std::map<std::string, int64_t> bounds;
  for (Node* p : graph.placeholders()) {
    if (!p->type() || p->type()->dtype != DType::kInt64) continue;
    // Walk the input's uses through ops that only relabel it (reshape, flatten, …).
    std::vector<const Node*> values = {p};
    std::set<const Node*> seen;
    while (!values.empty()) {
      const Node* v = values.back();
      values.pop_back();
      if (!seen.insert(v).second) continue;
      for (const Node* user : v->users()) {
        const OpSchema* op = user->schema();
        if (op == nullptr) continue;
        const bool relabels = op->family == OpFamily::kView || op->family == OpFamily::kIdentity ||
                              op->family == OpFamily::kPermute;
        if (relabels && user->input(0).node == v) {
          values.push_back(user);
          continue;
        }
        // embedding(indices, weight): weight's rows; index_select(x, dim, index): x's dim.
        Dim rows = -1;
        const Node* table = nullptr;
        if (op->name == "embedding" && user->input(0).node == v) {
          table = user->input(1).node;
          if (table && table->type() && table->type()->rank() == 2) rows = table->type()->shape[0];
        } else if (op->name == "index_select" && user->input(1).node == v) {
          table = user->input(0).node;
          const int index = op->attr_index("dim");
          const auto* dim = index >= 0 ? std::get_if<int64_t>(&user->attrs()[static_cast<size_t>(index)])
                                       : nullptr;
          if (table && table->type() && dim) {
            const int64_t rank = table->type()->rank();
            const int64_t d = *dim < 0 ? *dim + rank : *dim;
            if (d >= 0 && d < rank) rows = table->type()->shape[static_cast<size_t>(d)];
          }
        }
        if (is_concrete(rows) && rows > 0) {
          auto [it, inserted] = bounds.emplace(p->name(), rows);
          if (!inserted) it->second = std::min(it->second, rows);
        }
      }
    }
  }
  return bounds;
}

std::vector<eval::Tensor> make_inputs(const runtime::Executable& exe,
                                      const std::map<std::string, eval::Tensor>& files,
                                      uint64_t seed, const std::map<std::string, int64_t>& bounds) {
  std::vector<eval::Tensor> result;
  for (size_t i = 0; i < exe.inputs().size(); ++i) {
    const runtime::TensorInfo& info = exe.inputs()[i];
    auto it = files.find(info.name);
    if (it != files.end()) {
      result.push_back(it->second);
      continue;
    }
    auto bound = bounds.find(info.name);
    result.push_back(eval::Tensor::random_of(info.dtype, info.shape, seed + i,
                                             bound != bounds.end() ? bound->second : 10));
  }
  return result;
}

}  // namespace graft::cli
