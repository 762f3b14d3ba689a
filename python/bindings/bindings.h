// The pieces of the graft._graft extension module (pybind11), one file per concept: models,
// rules and rewriting, the runtime, rule testing, and the exceptions they raise. Python-side
// conveniences (dataclasses, shape caches, torch tensors) are in python/graft/*.py.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "engine/io/model_json.h"
#include "engine/support/diagnostics.h"

namespace graft::python {

namespace py = pybind11;

/// graft.GraftError and its subclasses, as C++ exceptions pybind11 translates. The message is
/// the diagnostics as the CLI prints them (file:line:col or file: JSON pointer).
struct GraftError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ModelError : GraftError {  // a model that cannot be loaded, saved or is invalid
  using GraftError::GraftError;
};
struct RulesError : GraftError {  // rule files that do not load or check
  using GraftError::GraftError;
};
struct RewriteError : GraftError {  // a rewrite that failed (an ill-typed replacement, a limit)
  using GraftError::GraftError;
};
struct RunError : GraftError {  // a model that does not compile or run on the runtime
  using GraftError::GraftError;
};

/// Throws `E` with `diags` rendered, or `fallback` when they hold nothing.
template <typename E>
[[noreturn]] void raise(const DiagnosticEngine& diags, const std::string& fallback) {
  std::string text = diags.render();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  throw E(text.empty() ? fallback : text);
}

/// numpy's dtype for `d` (bfloat16 has none: RunError).
pybind11::dtype numpy_dtype(DType d);
/// A numpy array of `dtype` and `shape` over the row-major bytes at `data`, which `owner`
/// keeps alive for as long as the array (or a view of it) lives.
pybind11::array array_over(const pybind11::dtype& dtype, const Shape& shape, const void* data,
                           std::shared_ptr<const void> owner);

/// A loaded model, shared by the Python objects that read it (a Model, an Executable's source).
struct ModelHandle {
  std::shared_ptr<Model> model;
  const Graph& graph() const { return *model->graph; }
};

void bind_errors(py::module_& m);
void bind_model(py::module_& m);
void bind_rules(py::module_& m);
void bind_runtime(py::module_& m);
void bind_testing(py::module_& m);

}  // namespace graft::python
