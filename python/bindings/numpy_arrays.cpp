// numpy dtypes for graft's dtypes, and numpy arrays over graft's buffers without a copy.
#include "python/bindings/bindings.h"

namespace graft::python {

py::dtype numpy_dtype(DType d) {
  switch (d) {
    case DType::kFloat32: return py::dtype::of<float>();
    case DType::kFloat64: return py::dtype::of<double>();
    case DType::kFloat16: return py::dtype("float16");
    case DType::kBFloat16: break;  // numpy has no bfloat16
    case DType::kInt64: return py::dtype::of<int64_t>();
    case DType::kInt32: return py::dtype::of<int32_t>();
    case DType::kInt16: return py::dtype::of<int16_t>();
    case DType::kInt8: return py::dtype::of<int8_t>();
    case DType::kUInt8: return py::dtype::of<uint8_t>();
    case DType::kBool: return py::dtype::of<bool>();
  }
  throw RunError(std::string("numpy has no dtype for ") + dtype_name(d));
}

py::array array_over(const py::dtype& dtype, const Shape& shape, const void* data,
                     std::shared_ptr<const void> owner) {
  auto* keep = new std::shared_ptr<const void>(std::move(owner));
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = dtype.itemsize();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= static_cast<py::ssize_t>(shape[i]);
  }
  return py::array(dtype, shape, strides, data, base);
}

}  // namespace graft::python
