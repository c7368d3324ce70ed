// A tiny extension module that registers its own tensor.proto in protobuf's generated
// pool when loaded, as another library linked against Debian's libprotobuf does.
#include <pybind11/pybind11.h>

#include "tensor.pb.h"

PYBIND11_MODULE(proto_clash_ext, m) {
  m.def("registered_file", [] { return proto_clash::TensorProto::descriptor()->file()->name(); });
  m.def("round_trip", [](float v) {
    proto_clash::TensorProto t;
    t.add_float_val(v);
    proto_clash::TensorProto back;
    back.ParseFromString(t.SerializeAsString());
    return back.float_val(0);
  });
}
