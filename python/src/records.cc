// TFRecord files (tf.io.TFRecordWriter, tf.io.tf_record_iterator): the C++ reader and
// writer of src/io/record_io.h; records cross as bytes.
#include <memory>
#include <string>

#include "bindings.h"
#include "io/record_io.h"

namespace tw::python {

void BindRecords(py::module_& m) {
  py::class_<io::RecordWriter>(m, "RecordWriter")
      .def(py::init([](const std::string& path, const std::string& compression) {
             return ValueOrThrow(io::RecordWriter::Open(path, compression));
           }),
           py::arg("path"), py::arg("compression_type") = "")
      .def("write", [](io::RecordWriter& w, const py::bytes& record) {
        ThrowIfError(w.Write(std::string(record)));
      })
      .def("flush", [](io::RecordWriter& w) { ThrowIfError(w.Flush()); })
      .def("close", [](io::RecordWriter& w) { ThrowIfError(w.Close()); });
  // read() raises OutOfRangeError at the end, as TensorFlow's reader does.
  py::class_<io::RecordReader>(m, "RecordReader")
      .def(py::init([](const std::string& path, const std::string& compression) {
             return ValueOrThrow(io::RecordReader::Open(path, compression));
           }),
           py::arg("path"), py::arg("compression_type") = "")
      .def("read", [](io::RecordReader& r) { return py::bytes(ValueOrThrow(r.Read())); });
}

}  // namespace tw::python
