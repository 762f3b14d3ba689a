// graft._graft.Model: a loaded model.json (graph, constants, metadata) as plain Python values.
// Reading a model never changes it; rewriting (bind_rules.cpp) works on a copy.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/graph_printer.h"
#include "engine/ir/verifier.h"
#include "python/bindings/bindings.h"

namespace graft::python {
namespace {

py::object dim_value(Dim d) {
  if (is_concrete(d)) return py::int_(d);
  return py::str(dim_to_string(d));  // a symbol ("N") or "?"
}

py::list shape_value(const Shape& shape) {
  py::list out;
  for (Dim d : shape) out.append(dim_value(d));
  return out;
}

py::object attr_value(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, SymInts>) {  // a symbol as its name: [-1, "T"]
          py::list l;
          for (auto e : x) l.append(py::cast(e));
          return l;
        } else {
          return py::cast(x);
        }
      },
      v);
}

py::object input_value(const Input& in) {
  if (in.is_node()) return py::str(in.node->name());
  if (in.is_scalar()) {
    if (in.scalar.is_int) {
      if (std::optional<int64_t> i = exact_int64(in.scalar.value)) return py::int_(*i);
    }
    return py::float_(in.scalar.value);
  }
  return py::none();
}

/// One node as a dict of plain values; graft.Node (python/graft/model.py) wraps it.
py::dict node_value(const Node& n) {
  py::dict d;
  d["name"] = n.name();
  d["op"] = node_kind_name(n.kind());
  d["target"] = n.target();
  py::list args;
  for (const Input& in : n.inputs()) args.append(input_value(in));
  d["args"] = args;
  py::dict kwargs;
  if (const OpSchema* schema = n.schema()) {
    for (size_t i = 0; i < schema->attrs.size(); ++i) {
      kwargs[py::str(schema->attrs[i].name)] = attr_value(n.attrs().at(i));
    }
  }
  d["kwargs"] = kwargs;
  py::list operand_names;  // each arg's parameter name (a variadic operand's for all of them)
  if (const OpSchema* schema = n.schema()) {
    for (size_t i = 0; i < n.inputs().size() && !schema->operands.empty(); ++i) {
      operand_names.append(schema->operands[std::min(i, schema->operands.size() - 1)].name);
    }
  }
  d["operand_names"] = operand_names;
  py::list symbols;  // the attributes that hold a symbol (slice's end="T", reshape's [-1, "T"])
  if (const OpSchema* schema = n.schema()) {
    for (size_t i = 0; i < schema->attrs.size(); ++i) {
      if (holds_symbol(schema->attrs[i], n.attrs().at(i))) {
        symbols.append(schema->attrs[i].name);
      }
    }
  }
  d["symbols"] = symbols;
  if (const TensorType* t = n.type()) {
    d["shape"] = shape_value(t->shape);
    d["dtype"] = dtype_name(t->dtype);
  } else {
    d["shape"] = py::none();
    d["dtype"] = py::none();
  }
  return d;
}

ModelHandle load(const std::string& path, const std::vector<std::string>& allow_paths) {
  DiagnosticEngine diags;
  std::optional<Model> model;
  {
    py::gil_scoped_release release;
    PathPolicy policy;
    policy.allowed_roots = allow_paths;
    model = load_model(path, diags, policy);
    if (model && !verify_graph(*model->graph, diags, path)) model.reset();
  }
  if (!model) raise<ModelError>(diags, "cannot load " + path);
  return {std::make_shared<Model>(std::move(*model))};
}

void save(const ModelHandle& h, const std::string& path) {
  DiagnosticEngine diags;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = save_model(*h.model, path, diags);
  }
  if (!ok) raise<ModelError>(diags, "cannot save " + path);
}

ModelHandle copy(const ModelHandle& h) {
  auto model = std::make_shared<Model>();
  model->graph = h.graph().clone();
  model->path = h.model->path;
  model->metadata = h.model->metadata;
  return {std::move(model)};
}

py::list tensor_infos(const std::vector<Input>& values) {
  py::list out;
  for (const Input& in : values) {
    if (!in.is_node()) continue;
    const TensorType* t = in.node->type();
    out.append(py::make_tuple(in.node->name(), t ? py::object(shape_value(t->shape)) : py::none(),
                              t ? py::object(py::str(dtype_name(t->dtype))) : py::none()));
  }
  return out;
}

/// The constant `name` as a read-only numpy array over the model's bytes, which it keeps alive.
py::array constant(const ModelHandle& h, const std::string& name) {
  const ConstantTensor* t = h.graph().constants().find(name);
  if (t == nullptr) throw ModelError("the model has no constant '" + name + "'");
  if (!is_concrete(t->shape())) throw ModelError("constant '" + name + "' has no concrete shape");
  py::dtype dtype = t->dtype() == DType::kBFloat16 ? py::dtype("uint16") : numpy_dtype(t->dtype());
  py::array out = array_over(dtype, t->shape(), t->data, t->owner);
  py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return out;
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<ModelHandle>(m, "Model", "A model.json and its weights, loaded and verified")
      .def_static("load", &load, py::arg("path"), py::arg("allow_paths") = std::vector<std::string>{},
                  "Loads and verifies a model.json; raises ModelError with every problem found")
      .def("save", &save, py::arg("path"),
           "Writes model.json and its weights atomically (as `rewrite -o` does)")
      .def("copy", &copy, "A deep copy (constant bytes are shared: they are immutable)")
      .def_property_readonly("path", [](const ModelHandle& h) { return h.model->path; })
      .def_property_readonly("metadata_json",
                             [](const ModelHandle& h) { return h.model->metadata.dump(); })
      .def("nodes",
           [](const ModelHandle& h) {
             py::list out;
             for (const Node* n : h.graph().nodes()) out.append(node_value(*n));
             return out;
           })
      .def("inputs",
           [](const ModelHandle& h) {
             std::vector<Input> ins;
             for (Node* p : h.graph().placeholders()) ins.push_back(Input::of(p));
             return tensor_infos(ins);
           })
      .def("outputs",
           [](const ModelHandle& h) {
             const Node* out = h.graph().output();
             return out ? tensor_infos({out->inputs().begin(), out->inputs().end()}) : py::list();
           })
      .def("constant", &constant, py::arg("name"),
           "A constant tensor (weights) as a read-only numpy array, without a copy")
      .def("constant_names",
           [](const ModelHandle& h) {
             std::vector<std::string> names;
             for (const auto& e : h.graph().constants().all()) names.push_back(e.name());
             std::sort(names.begin(), names.end());
             return names;
           })
      .def("node_count", [](const ModelHandle& h) { return h.graph().size(); })
      .def("table", [](const ModelHandle& h) { return format_graph_table(h.graph()); },
           "The graph as fx's print_tabular prints it")
      .def(
          "dot",
          [](const ModelHandle& h, const std::string& title) {
            DotOptions options;
            options.title = title;
            return graph_to_dot(h.graph(), options);
          },
          py::arg("title") = "", "The graph as Graphviz DOT text");
}

}  // namespace graft::python
