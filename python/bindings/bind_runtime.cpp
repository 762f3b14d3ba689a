// graft._graft.Executable: a model compiled for concrete input shapes on graft's oneDNN
// runtime. Inputs are numpy arrays read in place when they are C-contiguous and of the input's
// dtype (copied otherwise); outputs are numpy arrays over the runtime's own buffers (no copy).
// The GIL is released while compiling and running; one run at a time per executable.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "python/bindings/bindings.h"
#include "runtime/executable.h"

namespace graft::python {
namespace {

struct ExecutableHandle {
  std::shared_ptr<runtime::Executable> exe;
  std::shared_ptr<std::mutex> running = std::make_shared<std::mutex>();
};

ExecutableHandle compile(const ModelHandle& model, const std::map<std::string, Shape>& shapes,
                         const std::map<std::string, int64_t>& dims, int threads) {
  runtime::CompileOptions options;
  options.shapes.inputs = shapes;
  options.shapes.symbols = dims;
  options.source_name = model.model->path;
  DiagnosticEngine diags;
  std::unique_ptr<runtime::Executable> exe;
  {
    py::gil_scoped_release release;
    if (threads > 0) runtime::set_num_threads(threads);
    exe = runtime::compile(model.graph(), options, diags);
  }
  if (!exe) raise<RunError>(diags, "the model does not compile");
  return {std::shared_ptr<runtime::Executable>(std::move(exe))};
}

/// `array` as the tensor input `info` expects: its own buffer when it already has the layout,
/// else a converted copy kept alive in `keep`.
eval::Tensor input_tensor(const py::array& array, const runtime::TensorInfo& info,
                          std::vector<py::array>& keep) {
  py::dtype want = numpy_dtype(info.dtype);
  if (!array.dtype().is(want)) {
    throw RunError("input '" + info.name + "' has dtype " +
                   py::str(array.dtype()).cast<std::string>() + ", the model takes " +
                   dtype_name(info.dtype));
  }
  Shape shape(array.shape(), array.shape() + array.ndim());
  if (shape != info.shape) {
    throw RunError("input '" + info.name + "' has shape " + shape_to_string(shape) +
                   ", the executable was compiled for " + shape_to_string(info.shape));
  }
  py::array contiguous = py::array::ensure(array, py::array::c_style);
  keep.push_back(contiguous);
  return eval::Tensor::borrow(info.dtype, shape, const_cast<void*>(contiguous.data()));
}

/// A numpy array over `t`'s bytes, which it keeps alive.
py::array output_array(const eval::Tensor& t) {
  return array_over(numpy_dtype(t.dtype()), t.shape(), t.data(), t.owner());
}

py::list run(const ExecutableHandle& h, const std::vector<py::array>& arrays) {
  const std::vector<runtime::TensorInfo>& infos = h.exe->inputs();
  if (arrays.size() != infos.size()) {
    throw RunError("the model takes " + std::to_string(infos.size()) + " inputs, " +
                   std::to_string(arrays.size()) + " given");
  }
  std::vector<py::array> keep;
  std::vector<eval::Tensor> inputs;
  for (size_t i = 0; i < arrays.size(); ++i) inputs.push_back(input_tensor(arrays[i], infos[i], keep));
  DiagnosticEngine diags;
  std::optional<std::vector<eval::Tensor>> outputs;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(*h.running);
    outputs = h.exe->run(inputs, diags);
  }
  if (!outputs) raise<RunError>(diags, "the run failed");
  py::list out;
  for (const eval::Tensor& t : *outputs) out.append(output_array(t));
  return out;
}

/// The wall time of each step of one run, in milliseconds, by step (for profile()).
std::vector<double> profile(const ExecutableHandle& h, const std::vector<py::array>& arrays) {
  const std::vector<runtime::TensorInfo>& infos = h.exe->inputs();
  if (arrays.size() != infos.size()) throw RunError("wrong number of inputs");
  std::vector<py::array> keep;
  std::vector<eval::Tensor> inputs;
  for (size_t i = 0; i < arrays.size(); ++i) inputs.push_back(input_tensor(arrays[i], infos[i], keep));
  std::vector<eval::Tensor> outputs;
  for (const runtime::TensorInfo& o : h.exe->outputs()) outputs.push_back(eval::Tensor::zeros(o.dtype, o.shape));
  DiagnosticEngine diags;
  std::vector<double> step_ms;
  bool ok;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(*h.running);
    ok = h.exe->run_into(inputs, outputs, diags, &step_ms);
  }
  if (!ok) raise<RunError>(diags, "the run failed");
  return step_ms;
}

py::list infos_value(const std::vector<runtime::TensorInfo>& infos) {
  py::list out;
  for (const runtime::TensorInfo& i : infos) {
    out.append(py::make_tuple(i.name, std::vector<int64_t>(i.shape.begin(), i.shape.end()),
                              dtype_name(i.dtype)));
  }
  return out;
}

}  // namespace

void bind_runtime(py::module_& m) {
  py::class_<ExecutableHandle>(m, "Executable", "A model compiled for concrete input shapes")
      .def("run", &run, py::arg("inputs"), "Runs on numpy arrays, one per input, in order")
      .def("profile", &profile, py::arg("inputs"), "One run; each step's wall time in ms")
      .def("inputs", [](const ExecutableHandle& h) { return infos_value(h.exe->inputs()); })
      .def("outputs", [](const ExecutableHandle& h) { return infos_value(h.exe->outputs()); })
      .def("steps",
           [](const ExecutableHandle& h) {
             py::list out;
             for (const runtime::StepInfo& s : h.exe->steps()) {
               out.append(py::make_tuple(s.name, s.op, s.impl, s.layout, s.in_place));
             }
             return out;
           })
      .def("dump", [](const ExecutableHandle& h) { return h.exe->dump(); })
      .def("peak_activation_bytes",
           [](const ExecutableHandle& h) { return h.exe->peak_activation_bytes(); });
  m.def("compile", &compile, py::arg("model"), py::arg("shapes"),
        py::arg("dims") = std::map<std::string, int64_t>{}, py::arg("threads") = 0,
        "Compiles `model` for the input shapes {name: shape} and symbols {name: size}");
}

}  // namespace graft::python
