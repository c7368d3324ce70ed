// DTypes and the NumPy <-> tw::Tensor conversions (zero-copy where the layout allows).
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "tensorweave/dtype.h"

namespace tw::python {

py::dtype NumpyDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return py::dtype::of<float>();
    case DType::kDouble: return py::dtype::of<double>();
    case DType::kInt32: return py::dtype::of<int32_t>();
    case DType::kUint8: return py::dtype::of<uint8_t>();
    case DType::kInt16: return py::dtype::of<int16_t>();
    case DType::kInt8: return py::dtype::of<int8_t>();
    case DType::kInt64: return py::dtype::of<int64_t>();
    case DType::kBool: return py::dtype::of<bool>();
    case DType::kUint16: return py::dtype::of<uint16_t>();
    case DType::kHalf: return py::dtype("float16");  // Same bits as tw::half.
    case DType::kComplex64: return py::dtype("complex64");  // Same layout as std::complex.
    case DType::kComplex128: return py::dtype("complex128");
    case DType::kString: return py::dtype("O");  // Elements are bytes objects, as in TensorFlow.
    default:
      throw py::type_error("a " + DTypeName(dtype) + " tensor has no NumPy equivalent");
  }
}

namespace {

// The DType of a NumPy dtype, or kInvalid.
DType DTypeOfNumpy(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f' && size == 4) return DType::kFloat;
  if (kind == 'f' && size == 8) return DType::kDouble;
  if (kind == 'f' && size == 2) return DType::kHalf;
  if (kind == 'i' && size == 1) return DType::kInt8;
  if (kind == 'i' && size == 2) return DType::kInt16;
  if (kind == 'i' && size == 4) return DType::kInt32;
  if (kind == 'i' && size == 8) return DType::kInt64;
  if (kind == 'u' && size == 1) return DType::kUint8;
  if (kind == 'u' && size == 2) return DType::kUint16;
  if (kind == 'b' && size == 1) return DType::kBool;
  if (kind == 'c' && size == 8) return DType::kComplex64;
  if (kind == 'c' && size == 16) return DType::kComplex128;
  if (kind == 'O' || kind == 'S' || kind == 'U') return DType::kString;
  return DType::kInvalid;
}

// A string tensor from an array of bytes (or str, encoded as UTF-8), element by element.
Tensor StringTensorFromArray(const py::array& array, const TensorShape& shape) {
  Tensor t = ValueOrThrow(Tensor::Allocate(DType::kString, shape));
  py::object flat = array.attr("ravel")();
  std::string* out = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    py::object v = flat.attr("__getitem__")(i);
    if (PyBytes_Check(v.ptr())) {
      out[i] = v.cast<std::string>();
    } else if (PyUnicode_Check(v.ptr())) {
      out[i] = v.cast<std::string>();  // pybind11 encodes str as UTF-8.
    } else {
      throw py::type_error(absl::StrCat("a string tensor takes bytes or str, but element ", i, " is a ",
                                        py::str(py::type::of(v).attr("__name__")).cast<std::string>()));
    }
  }
  return t;
}

py::object StringArrayFromTensor(const Tensor& tensor) {
  auto bytes = [](const std::string& s) { return py::bytes(s); };
  if (tensor.rank() == 0) return bytes(tensor.scalar<std::string>());
  std::vector<py::ssize_t> dims(tensor.shape().dims().begin(), tensor.shape().dims().end());
  py::array out(py::dtype("O"), dims);
  py::object flat = out.attr("reshape")(-1);  // A view: filling it fills `out`.
  const std::string* in = tensor.data<std::string>();
  for (int64_t i = 0; i < tensor.NumElements(); ++i) flat.attr("__setitem__")(i, bytes(in[i]));
  return out;
}

// Drops the reference a wrapped buffer holds on its NumPy array, from whichever thread
// lets go of the buffer last.
void ReleaseArray(PyObject* array) {
  if (!Py_IsInitialized()) return;  // The interpreter is gone, and the array with it.
  py::gil_scoped_acquire gil;
  Py_DECREF(array);
}

}  // namespace

Tensor TensorFromArray(const py::array& array) {
  const DType dtype = DTypeOfNumpy(array.dtype());
  if (dtype == DType::kInvalid) {
    throw py::type_error(absl::StrCat("NumPy dtype ", py::str(array.dtype()).cast<std::string>(),
                                      " has no tensorweave equivalent"));
  }
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  const TensorShape shape = ShapeFromDims(dims);
  if (dtype == DType::kString) return StringTensorFromArray(array, shape);
  const bool contiguous = (array.flags() & py::array::c_style) != 0;
  const bool aligned = reinterpret_cast<uintptr_t>(array.data()) % kTensorAlignment == 0;
  if (contiguous && aligned && array.dtype().byteorder() != '>' && shape.num_elements() > 0) {
    PyObject* owner = array.ptr();
    Py_INCREF(owner);
    Buffer* buffer = Buffer::Wrap(const_cast<void*>(array.data()), array.nbytes(),
                                  [owner] { ReleaseArray(owner); });
    Tensor t(dtype, shape, buffer);
    buffer->Unref();  // The tensor holds its own reference.
    return t;
  }
  Tensor t = ValueOrThrow(Tensor::Allocate(dtype, shape));
  py::array contiguous_copy = py::array::ensure(array, py::array::c_style | py::array::forcecast);
  if (t.TotalBytes() > 0) std::memcpy(t.raw_data(), contiguous_copy.data(), t.TotalBytes());
  return t;
}

py::object ArrayFromTensor(Tensor tensor) {
  if (tensor.dtype() == DType::kString) return StringArrayFromTensor(tensor);
  py::dtype dt = NumpyDType(tensor.dtype());
  std::vector<py::ssize_t> dims(tensor.shape().dims().begin(), tensor.shape().dims().end());
  if (tensor.rank() == 0) {
    py::array a(dt, dims, {}, tensor.raw_data());  // Copies one element.
    return a[py::tuple()];
  }
  if (tensor.NumElements() == 0) return py::array(dt, dims);
  if (!tensor.RefCountIsOne()) {
    // Shared with a variable, a constant or another fetch: the caller gets its own copy.
    return py::array(dt, dims, {}, tensor.raw_data());
  }
  auto* owner = new Tensor(std::move(tensor));
  py::capsule keep_alive(owner, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(dt, dims, {}, owner->raw_data(), keep_alive);
}

TensorShape ShapeFromDims(const std::vector<int64_t>& dims) {
  return ValueOrThrow(TensorShape::Build(dims));
}

py::object DimsFromShape(const PartialShape& shape) {
  if (!shape.known_rank()) return py::none();
  py::list dims;
  for (int64_t d : shape.dims()) {
    if (d < 0) {
      dims.append(py::none());
    } else {
      dims.append(d);
    }
  }
  return dims;
}

PartialShape PartialShapeFromPython(const py::object& dims) {
  if (dims.is_none()) return PartialShape::UnknownRank();
  std::vector<int64_t> values;
  for (py::handle d : dims) values.push_back(d.is_none() ? -1 : d.cast<int64_t>());
  for (int64_t v : values) {
    if (v < -1) throw StatusError(absl::InvalidArgumentError(absl::StrCat("invalid dimension ", v)));
  }
  if (values.size() > kMaxRank) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("rank ", values.size(), " exceeds ", kMaxRank)));
  }
  return PartialShape(absl::Span<const int64_t>(values));
}

void BindTensor(py::module_& m) {
  py::enum_<DType>(m, "DType")
      .value("float32", DType::kFloat)
      .value("float64", DType::kDouble)
      .value("int32", DType::kInt32)
      .value("int64", DType::kInt64)
      .value("int8", DType::kInt8)
      .value("uint8", DType::kUint8)
      .value("int16", DType::kInt16)
      .value("uint16", DType::kUint16)
      .value("float16", DType::kHalf)
      .value("complex64", DType::kComplex64)
      .value("complex128", DType::kComplex128)
      .value("bool", DType::kBool)
      .value("string", DType::kString)
      .value("resource", DType::kResource)
      .value("variant", DType::kVariant);
  m.def("dtype_name", &DTypeName);
  m.def("numpy_dtype", &NumpyDType);
  // For tests of the conversions: a NumPy array through a tw::Tensor and back.
  m.def("_round_trip", [](const py::array& a) { return ArrayFromTensor(TensorFromArray(a)); });
}

}  // namespace tw::python
