// Binding symbolic dims and re-running shape inference on a clone of the graph.
#include "eval/concretize.h"

#include <algorithm>

#include "engine/ops/shape_infer.h"
#include "engine/ops/symbolic_int.h"
#include "engine/support/check.h"

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
        case NodeKind::kCallFunction: ok = bind_attrs(graph, *n) && infer(*n); break;
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

  /// Replaces the symbols in n's SymInt attributes by their values, so that inference,
  /// reference and kernels only see numbers. Remembers the type n has with its symbols (over
  /// its concrete operands: slice of [4, 4] to T is [T, 4]) for infer's check.
  bool bind_attrs(Graph& graph, Node& n) {
    symbolic_type_.reset();
    bound_.clear();
    if (!has_symbolic_attr(*n.schema(), n.attrs())) return true;
    std::string error;
    symbolic_type_ = infer_node_type(n, &error);
    if (!symbolic_type_) return fail("node '" + n.name() + "' (" + n.target() + "): " + error);
    const std::vector<AttrSpec>& specs = n.schema()->attrs;
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!holds_symbol(specs[i], n.attrs()[i])) continue;
      std::optional<AttrValue> value = bound_value(n, specs[i], n.attrs()[i]);
      if (!value) return false;
      graph.set_attr(&n, specs[i].name, std::move(*value));
    }
    return true;
  }

  /// `value` with its symbols replaced by their values: a SymInt's int (the value of its sum
  /// "2*T-1"), a SymInt[]'s int list.
  /// nullopt after reporting a symbol no input binds.
  std::optional<AttrValue> bound_value(const Node& n, const AttrSpec& spec, const AttrValue& value) {
    auto bind = [&](const std::string& symbol) -> std::optional<int64_t> {
      auto it = symbols_.find(symbol);
      if (it == symbols_.end()) {
        fail("node '" + n.name() + "' (" + n.target() + ") has " + spec.name + "=" +
             attr_to_string_bare(value) + ", but no input shape binds '" + symbol +
             "'; give its value (--dim " + symbol + "=N)");
        return std::nullopt;
      }
      bound_.emplace_back(symbol, it->second);
      return it->second;
    };
    if (const auto* text = std::get_if<std::string>(&value)) {
      // A symbol or a sum of multiples of symbols ("2*T-1"; coerce_attr admitted only those).
      std::optional<SymbolicInt> expr = parse_symbolic_int(*text);
      GRAFT_CHECK(expr) << "a SymInt attribute holds '" << *text << "'";
      for (const auto& term : expr->terms) {
        if (!bind(term.first)) return std::nullopt;
      }
      std::optional<int64_t> bound = evaluate_symbolic_int(*expr, symbols_);
      if (!bound) {
        fail("node '" + n.name() + "' (" + n.target() + ") has " + spec.name + "=" + *text +
             ", which overflows int64 at " + bound_text());
        return std::nullopt;
      }
      return AttrValue{*bound};
    }
    std::vector<int64_t> sizes;
    for (const SymInt& item : std::get<SymInts>(value)) {
      const auto* symbol = std::get_if<std::string>(&item);
      std::optional<int64_t> bound = symbol ? bind(*symbol) : std::get<int64_t>(item);
      if (!bound) return std::nullopt;
      sizes.push_back(*bound);
    }
    return AttrValue{std::move(sizes)};
  }

  /// An attribute value as `rewrite print` writes it: a symbol bare.
  static std::string attr_to_string_bare(const AttrValue& value) {
    const auto* symbol = std::get_if<std::string>(&value);
    return symbol ? *symbol : attr_to_string(value);
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
    if (symbolic_type_ && !follows(symbolic_type_->shape, type->shape)) {
      // x[:T] has T elements only while T is at most the dim: Python's clamping would
      // silently give fewer.
      return fail("node '" + n.name() + "' (" + n.target() + ") computes " +
                  shape_to_string(type->shape) + " at " + bound_text() + ", not " +
                  shape_to_string(symbolic_type_->shape) +
                  ": a symbol's value runs past the dim it indexes");
    }
    n.meta().set_type(std::move(type));
    return true;
  }

  /// Whether concrete shape `shape` is `symbolic` with the bound symbols' values ("?" and
  /// unbound symbols match anything).
  bool follows(const Shape& symbolic, const Shape& shape) const {
    if (symbolic.size() != shape.size()) return false;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (is_concrete(symbolic[i])) {
        if (symbolic[i] != shape[i]) return false;
        continue;
      }
      auto it = symbols_.find(dim_to_string(symbolic[i]));
      if (it != symbols_.end() && it->second != shape[i]) return false;
    }
    return true;
  }

  /// "T=2000" for the symbols the last node's attributes bound (each once).
  std::string bound_text() const {
    std::string text;
    for (size_t i = 0; i < bound_.size(); ++i) {
      const std::string& name = bound_[i].first;
      const int64_t value = bound_[i].second;
      auto first = std::find_if(bound_.begin(), bound_.end(),
                                [&](const auto& b) { return b.first == name; });
      if (first - bound_.begin() != static_cast<std::ptrdiff_t>(i)) continue;
      text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
    }
    return text;
  }

  std::map<std::string, int64_t> symbols_;
  std::optional<TensorType> symbolic_type_;  // the node's type before bind_attrs
  std::vector<std::pair<std::string, int64_t>> bound_;  // what bind_attrs substituted
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
