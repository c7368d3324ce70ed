// Names the request type when a call's bytes are not that protobuf message: gRPC itself
// answers INTERNAL (sync methods) or UNIMPLEMENTED (callback methods) with an empty
// message, which tells a client nothing. This makes it InvalidArgument "cannot parse
// RunStepRequest: ...".
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_PARSE_ERROR_INTERCEPTOR_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_PARSE_ERROR_INTERCEPTOR_H_

#include <memory>

#include <grpcpp/support/server_interceptor.h>

namespace tw {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeParseErrorInterceptorFactory();

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_PARSE_ERROR_INTERCEPTOR_H_
