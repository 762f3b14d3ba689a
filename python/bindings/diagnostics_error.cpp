// graft.GraftError and its subclasses. The base is registered first: pybind11 tries the
// translators last-registered first, so each subclass is caught as itself.
#include "python/bindings/bindings.h"

namespace graft::python {

void bind_errors(py::module_& m) {
  auto& base = py::register_exception<GraftError>(m, "GraftError");
  py::register_exception<ModelError>(m, "ModelError", base.ptr());
  py::register_exception<RulesError>(m, "RulesError", base.ptr());
  py::register_exception<RewriteError>(m, "RewriteError", base.ptr());
  py::register_exception<RunError>(m, "RunError", base.ptr());
}

}  // namespace graft::python
