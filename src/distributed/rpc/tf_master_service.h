// TensorFlow's MasterService served by name on a task's gRPC server: calls to
// "/tensorflow.MasterService/<Method>" (the path TensorFlow's own client and server use;
// "/tensorflow.grpc.MasterService/..." after its master_service.proto's package too) are
// parsed as our copies of TensorFlow's messages (tensorweave/proto/tf_master.proto) and
// answered by a TfMasterAdapter, so a real tf.compat.v1.Session("grpc://host:port") runs
// its graphs on a tensorweave cluster.
// No service descriptor named tensorflow.* is registered (TensorFlow's own protos may
// share the process). TensorFlow's WorkerService is not served: its calls fail with
// Unimplemented naming why.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_SERVICE_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_SERVICE_H_

#include <grpcpp/generic/async_generic_service.h>

#include "core/threadpool.h"
#include "distributed/rpc/reply_budget.h"
#include "distributed/rpc/tf_master_adapter.h"

namespace tw {

inline constexpr char kTfMasterServicePrefix[] = "/tensorflow.MasterService/";
inline constexpr char kTfMasterServiceProtoPrefix[] = "/tensorflow.grpc.MasterService/";
inline constexpr char kTfWorkerServicePrefix[] = "/tensorflow.WorkerService/";
inline constexpr char kTfWorkerServiceProtoPrefix[] = "/tensorflow.grpc.WorkerService/";

// Registered with ServerBuilder::RegisterCallbackGenericService: it receives every call
// whose method no registered service has.
class TfMasterService final : public grpc::CallbackGenericService {
 public:
  // `budget` (may be null) counts the replies held for clients (reply_budget.h).
  explicit TfMasterService(TfMasterAdapter* adapter, ReplyBudget* budget = nullptr)
      : adapter_(adapter), budget_(budget) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* ctx) override;

 private:
  TfMasterAdapter* adapter_;
  ReplyBudget* budget_;
  ThreadPool pool_{"tf_master", 4};  // Runs the calls that may block.
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_SERVICE_H_
