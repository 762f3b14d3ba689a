// graft._graft: the extension module behind the `graft` package (python/graft/__init__.py).
#include "python/bindings/bindings.h"

PYBIND11_MODULE(_graft, m) {
  m.doc() = "graft's C++ core: models, rules, rewriting, the runtime and rule tests";
  graft::python::bind_errors(m);
  graft::python::bind_model(m);
  graft::python::bind_rules(m);
  graft::python::bind_runtime(m);
  graft::python::bind_testing(m);
}
