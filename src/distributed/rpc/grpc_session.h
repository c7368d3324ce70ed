// A client session on a cluster: every call goes to the MasterService at the target. A
// target that is a TensorFlow server (tf.distribute.Server: our CreateSession is
// Unimplemented there) is spoken to in TensorFlow's MasterService (tf_master_client.h).
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_SESSION_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_SESSION_H_

#include <memory>
#include <string>

#include "runtime/session.h"

namespace tw {

// `target` is "grpc://host:port"; InvalidArgument for anything else.
absl::StatusOr<std::unique_ptr<SessionInterface>> NewGrpcSession(const std::string& target,
                                                                  const SessionOptions& options);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_SESSION_H_
