// The generated protobuf classes live in namespace tensorweave (their package, unique
// in protobuf's process-wide descriptor pool); the engine names them tw::GraphDef,
// tw::TensorProto, ... as it always has. Include after any tensorweave/proto/*.pb.h.
#ifndef TENSORWEAVE_CORE_PROTO_NAMESPACE_H_
#define TENSORWEAVE_CORE_PROTO_NAMESPACE_H_

namespace tensorweave {}
namespace tw {
using namespace ::tensorweave;  // NOLINT(google-build-using-namespace)
}  // namespace tw

#endif  // TENSORWEAVE_CORE_PROTO_NAMESPACE_H_
