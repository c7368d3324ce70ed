// TensorFlow's MasterService on top of a task's Master: each call of a TensorFlow client
// (tf.compat.v1.Session("grpc://...")) translated into ours. TensorFlow's messages differ
// from ours in the session config, graph versions, the device list, callables and where
// a failed step's error goes; the graph, tensors and feeds/fetches are the same messages.
// Transport-neutral (tf_master_service.h serves it over gRPC).
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_ADAPTER_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_ADAPTER_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/cancellation.h"
#include "distributed/master.h"
#include "tensorweave/proto/tf_master.pb.h"

namespace tw {

class TfMasterAdapter {
 public:
  // `master` is the master of task (job, task); its devices are the "local" ones.
  TfMasterAdapter(Master* master, std::string job, int task);

  absl::Status CreateSession(const tfwire::CreateSessionRequest& req, tfwire::CreateSessionResponse* resp);
  absl::Status ExtendSession(const tfwire::ExtendSessionRequest& req, tfwire::ExtendSessionResponse* resp);
  // Runs a step without blocking; `done` runs once with the status the call ends with
  // (OK with the error in `resp` when the client asked store_errors_in_response_body,
  // as TensorFlow's master does). req and resp must live until then.
  void RunStepAsync(const tfwire::RunStepRequest* req, tfwire::RunStepResponse* resp,
                    CancellationManager* client_cancel, StepDone done);
  absl::Status CloseSession(const tfwire::CloseSessionRequest& req, tfwire::CloseSessionResponse* resp);
  absl::Status ListDevices(const tfwire::ListDevicesRequest& req, tfwire::ListDevicesResponse* resp);
  absl::Status Reset(const tfwire::ResetRequest& req, tfwire::ResetResponse* resp);
  // A callable is a remembered (feeds, fetches, targets) signature run as a step.
  absl::Status MakeCallable(const tfwire::MakeCallableRequest& req, tfwire::MakeCallableResponse* resp);
  void RunCallableAsync(const tfwire::RunCallableRequest* req, tfwire::RunCallableResponse* resp,
                        CancellationManager* client_cancel, StepDone done);
  absl::Status ReleaseCallable(const tfwire::ReleaseCallableRequest& req, tfwire::ReleaseCallableResponse* resp);

 private:
  struct SessionState {
    int64_t graph_version = 0;
    int64_t next_callable = 0;
    absl::flat_hash_map<int64_t, tfwire::CallableOptions> callables;
  };

  Master* const master_;
  const std::string local_prefix_;  // "/job:J/replica:0/task:T/": this task's devices.
  const uint64_t incarnation_seed_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, SessionState> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_TF_MASTER_ADAPTER_H_
