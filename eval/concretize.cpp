// Binding symbolic dims and re-running shape inference on a clone of the graph.
#include "eval/concretize.h"

#include "engine/ops/shape_infer.h"

namespace graft::eval {
namespace {

class Concretizer {
 public:
  Concretizer(const ShapeBindings& bindings, const std::string& source, DiagnosticEngine& diags)
      : symbols_(bindings.symbols), bindings_(bindings), source_(source), diags_(diags) {}

  bool run(Graph& graph) {
    // Explicit input shapes bind symbols first, so the order of placeholders does not matter.
    for (Node* p : graph.placeholders()) {
      auto it = bindings_.inputs.find(p->name());
      if (it != bindings_.inputs.end() && !bind_explicit(*p, it->second)) return false;
    }
    for (Node* n : graph.nodes()) {
      bool ok = true;
      switch (n->kind()) {
        case NodeKind::kPlaceholder: ok = resolve_placeholder(*n); break;
        case NodeKind::kGetAttr: ok = resolve_constant(graph, *n); break;
        case NodeKind::kCallFunction: ok = infer(*n); break;
        case NodeKind::kOutput: break;
      }
      if (!ok) return false;
    }
    return true;
  }

 private:
  bool fail(const std::string& message) {
    diags_.error(DiagLocation::in_file(source_), message);
    return false;
  }

  bool bind_explicit(const Node& p, const Shape& shape) {
    if (!is_concrete(shape)) {
      return fail("the shape given for input '" + p.name() + "' must be concrete, got " +
                  shape_to_string(shape));
    }
    if (!p.type()) return true;  // the placeholder's own meta is missing: the shape given wins
    const Shape& declared = p.type()->shape;
    if (declared.size() != shape.size()) {
      return fail("input '" + p.name() + "' has rank " + std::to_string(declared.size()) +
                  " (" + shape_to_string(declared) + "), but a shape of rank " +
                  std::to_string(shape.size()) + " was given: " + shape_to_string(shape));
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      Dim d = declared[i];
      if (is_concrete(d)) {
        if (d != shape[i]) {
          return fail("input '" + p.name() + "' is declared " + shape_to_string(declared) +
                      ", but the shape given is " + shape_to_string(shape));
        }
        continue;
      }
      std::string name = dim_to_string(d);
      if (name == "?") continue;
      auto [it, inserted] = symbols_.try_emplace(name, shape[i]);
      if (!inserted && it->second != shape[i]) {
        return fail("symbol '" + name + "' is bound to " + std::to_string(it->second) +
                    " but input '" + p.name() + "' gives it " + std::to_string(shape[i]));
      }
    }
    return true;
  }

  bool resolve_placeholder(Node& p) {
    auto given = bindings_.inputs.find(p.name());
    if (!p.type() && given == bindings_.inputs.end()) {
      return fail("input '" + p.name() + "' has no declared shape; give one");
    }
    TensorType type = p.type() ? *p.type() : TensorType{};
    if (given != bindings_.inputs.end()) {
      type.shape = given->second;
    } else {
      for (Dim& d : type.shape) {
        if (is_concrete(d)) continue;
        auto it = symbols_.find(dim_to_string(d));
        if (it == symbols_.end()) {
          return fail("input '" + p.name() + "' has the symbolic dim '" + dim_to_string(d) +
                      "' in " + shape_to_string(p.type()->shape) +
                      "; give its value (--dim " + dim_to_string(d) + "=N, or --batch for a " +
                      "leading dim) or the input's shape");
        }
        if (it->second < 0) {
          return fail("symbol '" + it->first + "' must be non-negative, got " +
                      std::to_string(it->second));
        }
        d = it->second;
      }
    }
    p.meta().set_type(type);
    return true;
  }

  bool resolve_constant(const Graph& graph, Node& n) {
    const ConstantTensor* c = graph.constant(n);
    if (c == nullptr) {
      return fail("node '" + n.name() + "' refers to the missing constant '" + n.target() + "'");
    }
    n.meta().type = &c->type();  // uniqued already
    return true;
  }

  bool infer(Node& n) {
    std::string error;
    std::optional<TensorType> type = infer_node_type(n, &error);
    if (!type) {
      return fail("node '" + n.name() + "' (" + n.target() + "): " + error);
    }
    if (!is_concrete(type->shape)) {
      return fail("node '" + n.name() + "' (" + n.target() + ") has the non-concrete shape " +
                  shape_to_string(type->shape) + " after binding the input shapes");
    }
    n.meta().set_type(std::move(type));
    return true;
  }

  std::map<std::string, int64_t> symbols_;
  const ShapeBindings& bindings_;
  const std::string& source_;
  DiagnosticEngine& diags_;
};

}  // namespace

std::unique_ptr<Graph> concretize_graph(const Graph& graph, const ShapeBindings& bindings,
                                        const std::string& source_name, DiagnosticEngine& diags) {
  std::unique_ptr<Graph> copy = graph.clone();
  for (const auto& [name, shape] : bindings.inputs) {
    Node* n = copy->find(name);
    if (n == nullptr || !n->is(NodeKind::kPlaceholder)) {
      diags.error(DiagLocation::in_file(source_name),
                  "a shape was given for '" + name + "', which is not an input of the model");
      return nullptr;
    }
  }
  Concretizer c(bindings, source_name, diags);
  if (!c.run(*copy)) return nullptr;
  return copy;
}

}  // namespace graft::eval
