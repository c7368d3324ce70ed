// The collective runtime of one task over gRPC (kernels/collective.h): the
// CollectiveService it serves (proto/collective.proto) and the algorithms run by its
// members.
//   Group: each member asks the group leader (the cluster's first task, jobs by name) to
//   Join group_key; the leader answers once group_size tasks joined, sorted by (job, task):
//   a member's rank is its place there. Members keep the answer for later runs.
//   All-reduce of at most 64 KiB: direct. Every member sends its tensor to every other one
//   (one hop instead of the ring's 2 (n - 1)) and reduces the n tensors itself in rank
//   order, so that every member gets the same bits. In a group already known, the sends
//   start on the caller's thread.
//   All-reduce above: a ring. The tensor is cut into group_size chunks, each chunk into
//   pieces of at most 1 MiB; reduce-scatter then all-gather, 2 (n - 1) steps, each piece
//   sent on to the next task as soon as it was merged, so pieces flow around the ring as a
//   pipeline. Received pieces are merged straight from gRPC's slices.
//   All-reduce above 64 KiB with every member on this host (loopback addresses): through
//   shared memory. Each member puts its tensor in a segment of its own, the members reduce
//   a chunk each (in rank order, so every member gets the same bits) and copy the others'
//   chunks: two barriers of small Puts, no tensor bytes through gRPC or TCP. Segments are
//   kept for the next run of the same collective (two, alternating), up to 1 GiB a task.
//   TW_COLLECTIVE_SHM=0 keeps the ring.
//   A ring run waits for the answers to all its sends before handing the result on (its
//   consumers may write into it); a successful direct run sends from a copy of its input
//   and ends once it has every member's data.
//   Broadcast: the sender pushes every piece to every other member.
//   Data travels as Put calls, raw: each piece's bytes are a slice referencing the
//   tensor (no copy on the sender) and are merged or copied once on the receiver.
//   The n-th run of (group_key, instance_key) on a task meets the n-th run on the others.
// Faults: a wait for a piece, a Join, a Put each end within the deadline (the op's
// timeout_seconds, or the server's RPC timeout), naming the task; the member that failed
// tells the others (an abort Put), so they fail at once with its reason.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_COLLECTIVE_RPC_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_COLLECTIVE_RPC_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "distributed/rpc/grpc_security.h"
#include "kernels/collective.h"
#include "tensorweave/cluster_spec.h"

namespace tw {

class CollectiveRpc : public CollectiveRuntime, public std::enable_shared_from_this<CollectiveRpc> {
 public:
  CollectiveRpc(ClusterSpec cluster, const std::string& job, int task, absl::Duration rpc_timeout);
  ~CollectiveRpc() override;

  // Before serving: how this task presents itself to the others (TLS, token).
  void SetClientCredentials(ClientCredentials credentials);
  grpc::Service* service();
  const std::string& task_name() const { return task_name_; }
  // The server stops: waiters fail (Unavailable) instead of waiting out their deadline.
  void Shutdown();

  void Run(const CollectiveParams& params, Tensor data, CancellationManager* cancellation,
           std::function<void(absl::Status)> done) override;

  // Served calls (the service forwards them here).
  absl::Status ServeJoin(int64_t group_key, int group_size, const std::string& task, absl::Time deadline,
                         std::vector<std::string>* members);
  absl::Status ServePut(const grpc::ByteBuffer& message);

 private:
  struct Piece {
    std::vector<grpc::Slice> slices;
    size_t bytes = 0;
  };
  struct Sends;
  struct Exec;  // One run of a collective on this task.

  absl::Status RunBlocking(Exec& x, Tensor& data);
  // From the group cached here, without waiting: members, rank, run key. False if unknown.
  bool PrepareFromCache(Exec& x);
  void AssignRun(Exec& x) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendDirect(Exec& x, const Tensor& data);
  absl::StatusOr<std::vector<std::string>> ResolveGroup(const CollectiveParams& params, absl::Duration timeout);
  absl::Status RunDirect(Exec& x, Tensor& data);
  absl::Status RunRing(Exec& x, Tensor& data);
  // Members all on this host (loopback addresses): through shared memory instead of the ring.
  bool SharedMemoryRun(const Exec& x);
  struct SharedBuffers;
  absl::Status RunShared(Exec& x, Tensor& data);
  absl::Status RunSharedWith(Exec& x, Tensor& data, SharedBuffers& buffers);
  // The run's buffers, kept here under `key` (empty: made for this run only).
  absl::StatusOr<std::shared_ptr<SharedBuffers>> AcquireBuffers(const Exec& x, size_t bytes, std::string* key);
  void ReleaseBuffers(const std::string& key, const std::shared_ptr<SharedBuffers>& buffers, bool ok, size_t bytes);
  // Sends `payload` as piece <run>/<what>/<rank> to every other member and waits for
  // theirs (a barrier), which land in `received` by member when given.
  absl::Status SignalAll(Exec& x, const std::string& what, const Tensor& payload,
                         std::vector<Piece>* received = nullptr);
  absl::Status RunBroadcast(Exec& x, Tensor& data);
  absl::Status WaitPiece(const Exec& x, const std::string& key, const std::string& from, Piece* out);
  void SendPiece(Exec& x, const std::string& to, const std::string& key, const Tensor& data, size_t offset,
                 size_t bytes);
  void SendAbort(const Exec& x, const std::string& reason);
  grpc::GenericStub* StubFor(const std::string& task, std::string* address);

  const ClusterSpec cluster_;
  const std::string task_name_;
  const std::string leader_;
  const absl::Duration rpc_timeout_;
  std::unique_ptr<grpc::Service> service_;

  absl::Mutex stubs_mu_;
  ClientCredentials credentials_ ABSL_GUARDED_BY(stubs_mu_);
  std::map<std::string, std::pair<std::string, std::unique_ptr<grpc::GenericStub>>> stubs_ ABSL_GUARDED_BY(stubs_mu_);

  absl::Mutex mu_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<std::string, Piece> pieces_ ABSL_GUARDED_BY(mu_);       // By piece key.
  size_t unclaimed_bytes_ ABSL_GUARDED_BY(mu_) = 0;                          // Their bytes.
  absl::flat_hash_map<std::string, std::string> aborts_ ABSL_GUARDED_BY(mu_); // By run key.
  // By run key: whether pieces came by the direct algorithm (1) or the ring (2). A member
  // whose tensor sits on the other side of the direct limit runs the other algorithm: its
  // pieces tell, and the wait fails at once instead of at the deadline.
  absl::flat_hash_map<std::string, int> algorithms_ ABSL_GUARDED_BY(mu_);
  // Shared-memory runs' buffers by (group, instance, bytes, run parity), and their bytes.
  absl::flat_hash_map<std::string, std::shared_ptr<SharedBuffers>> shared_buffers_ ABSL_GUARDED_BY(mu_);
  size_t shared_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::pair<int64_t, int64_t>, int64_t> next_run_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::vector<std::string>> groups_ ABSL_GUARDED_BY(mu_);  // Resolved here.
  struct LeaderGroup {
    int size = 0;
    std::vector<std::string> members;
  };
  std::map<int64_t, LeaderGroup> leader_groups_ ABSL_GUARDED_BY(mu_);  // As the leader.
};

// "/job:worker/replica:0/task:1" -> ("worker", 1); false for anything else.
bool ParseTaskName(const std::string& name, std::string* job, int* task);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_COLLECTIVE_RPC_H_
