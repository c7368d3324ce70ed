// A client session speaking TensorFlow's MasterService ("/tensorflow.MasterService/...")
// with our copies of its messages (tensorweave/proto/tf_master.proto): how a grpc:// session
// runs its graphs on a cluster of TensorFlow servers (tf.distribute.Server). A grpc://
// session picks it by itself when the target answers our CreateSession with Unimplemented
// (grpc_session.cc): the program is the same against either kind of cluster.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_CLIENT_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "runtime/session.h"

namespace tw {

// A session on the TensorFlow master behind `channel`; `who` names it in transport errors.
std::unique_ptr<SessionInterface> NewTfMasterSession(std::shared_ptr<grpc::Channel> channel, std::string who,
                                                     const SessionOptions& options);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_CLIENT_H_
