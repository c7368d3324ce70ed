// The collective runtime over gRPC: see collective_rpc.h.
#include "distributed/rpc/collective_rpc.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <thread>

#include "absl/random/random.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/shared_segment.h"
#include "tensorweave/proto/collective.grpc.pb.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

constexpr char kPutMethod[] = "/tensorweave.CollectiveService/Put";
// Bytes of a piece: 1 MiB, the size gRPC moves fastest here (as RecvTensors' chunks);
// TW_COLLECTIVE_PIECE_BYTES overrides, for experiments. Every member must use the same.
size_t PieceBytes() {
  static const size_t bytes = [] {
    const char* env = std::getenv("TW_COLLECTIVE_PIECE_BYTES");
    int64_t b = 0;
    return env != nullptr && absl::SimpleAtoi(env, &b) && b >= 8 ? static_cast<size_t>(b) : size_t{1} << 20;
  }();
  return bytes;
}
// Caps on what peers may leave here (Put): key and abort-reason sizes, the number of abort
// reasons kept, the bytes of pieces not yet taken by their run.
constexpr size_t kMaxKeyBytes = 256, kMaxAbortBytes = 16 << 10, kMaxAborts = 1024;
constexpr size_t kMaxUnclaimedBytes = size_t{4} << 30;
// A member waits this much longer for the leader's Join answer than the leader waits for
// the group, to hear the leader's answer naming the tasks that did not join.
constexpr absl::Duration kJoinAnswerMargin = absl::Milliseconds(500);

// Pieces of one run in flight at once (TW_COLLECTIVE_WINDOW overrides, for experiments).
int SendWindow() {
  static const int window = [] {
    const char* env = std::getenv("TW_COLLECTIVE_WINDOW");
    int w = 0;
    return env != nullptr && absl::SimpleAtoi(env, &w) && w > 0 ? w : 4;
  }();
  return window;
}

// A piece key is "group/instance/n/" + "d/..." (direct), "<step>/..." (ring) or "b/..."
// (broadcast): its run key, and 1 for direct, 2 for ring, 0 otherwise.
std::string RunKeyOf(const std::string& key) {
  size_t end = 0;
  for (int i = 0; i < 3 && end != std::string::npos; ++i) end = key.find('/', end == 0 ? 0 : end + 1);
  return key.substr(0, end);
}
int PieceAlgorithm(const std::string& key) {
  const std::string run = RunKeyOf(key);
  if (run.size() + 1 >= key.size()) return 0;
  const char c = key[run.size() + 1];
  return c == 'd' ? 1 : c >= '0' && c <= '9' ? 2 : 0;
}

// All-reduces of at most this many bytes go direct (every member to every other, one hop)
// rather than around the ring (2 (n - 1) hops): below it, a hop's latency costs more than
// the extra bytes. TW_COLLECTIVE_DIRECT_BYTES overrides, for experiments; every member
// must use the same.
size_t DirectMaxBytes() {
  static const size_t bytes = [] {
    const char* env = std::getenv("TW_COLLECTIVE_DIRECT_BYTES");
    int64_t b = 0;
    return env != nullptr && absl::SimpleAtoi(env, &b) && b >= 0 ? static_cast<size_t>(b) : size_t{64} << 10;
  }();
  return bytes;
}

// A member whose tensor is on the other side of DirectMaxBytes() from this one's, of
// `elements` elements of `dtype`.
absl::Status AlgorithmMismatch(int64_t elements, DType dtype) {
  const size_t bytes = elements * DTypeSize(dtype);
  return absl::InvalidArgumentError(absl::StrCat(
      "another member all-reduces by the ", bytes <= DirectMaxBytes() ? "ring" : "direct algorithm",
      ": the members' tensors differ in size (this one has ", elements, " elements of ", DTypeName(dtype), ", ",
      bytes, " bytes; the direct algorithm takes up to ", DirectMaxBytes(), ")"));
}

void ReleaseTensorRef(void* tensor) { delete static_cast<Tensor*>(tensor); }

void AppendVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Reads protobuf fields across the slices of a received message without copying the data.
class SliceCursor {
 public:
  explicit SliceCursor(std::vector<grpc::Slice> slices) : slices_(std::move(slices)) { Skip(); }
  bool done() const { return i_ == slices_.size(); }
  bool ReadVarint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) return false;
      const uint8_t b = slices_[i_].begin()[off_];
      Advance(1);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  // The next n bytes as slices referencing the message.
  bool Take(size_t n, std::vector<grpc::Slice>* out) {
    while (n > 0) {
      if (done()) return false;
      const size_t k = std::min(n, slices_[i_].size() - off_);
      out->push_back(slices_[i_].sub(off_, off_ + k));
      Advance(k);
      n -= k;
    }
    return true;
  }
  bool TakeString(size_t n, std::string* s) {
    std::vector<grpc::Slice> parts;
    if (!Take(n, &parts)) return false;
    for (const grpc::Slice& p : parts) s->append(reinterpret_cast<const char*>(p.begin()), p.size());
    return true;
  }

 private:
  void Advance(size_t k) {
    off_ += k;
    Skip();
  }
  void Skip() {
    while (i_ < slices_.size() && off_ == slices_[i_].size()) {
      ++i_;
      off_ = 0;
    }
  }
  std::vector<grpc::Slice> slices_;
  size_t i_ = 0, off_ = 0;
};

// Copies a piece's slices into dst (contiguous).
void CopyPiece(const std::vector<grpc::Slice>& slices, char* dst) {
  for (const grpc::Slice& s : slices) {
    std::memcpy(dst, s.begin(), s.size());
    dst += s.size();
  }
}

// dst[i] = dst[i] op src[i]; src is read through memcpy (received bytes need not be aligned).
template <typename T>
void MergeInto(T* dst, const unsigned char* src, size_t n, const std::string& op) {
  auto at = [src](size_t i) {
    T v;
    std::memcpy(&v, src + i * sizeof(T), sizeof(T));
    return v;
  };
  if (op == "Add") {
    for (size_t i = 0; i < n; ++i) dst[i] += at(i);
  } else if (op == "Mul") {
    for (size_t i = 0; i < n; ++i) dst[i] *= at(i);
  } else if (op == "Max") {
    for (size_t i = 0; i < n; ++i) dst[i] = std::max(dst[i], at(i));
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = std::min(dst[i], at(i));
  }
}

// Merges a received piece into dst straight from its slices (no staging copy). An element
// may straddle two slices: its bytes are gathered first.
template <typename T>
void MergeSlices(const std::vector<grpc::Slice>& slices, T* dst, const std::string& op) {
  unsigned char carry[sizeof(T)];
  size_t have = 0;  // Bytes of a straddling element gathered so far.
  for (const grpc::Slice& s : slices) {
    const unsigned char* p = s.begin();
    size_t n = s.size();
    if (have > 0) {
      const size_t k = std::min(sizeof(T) - have, n);
      std::memcpy(carry + have, p, k);
      have += k;
      p += k;
      n -= k;
      if (have < sizeof(T)) continue;
      MergeInto(dst++, carry, 1, op);
      have = 0;
    }
    const size_t whole = n / sizeof(T);
    MergeInto(dst, p, whole, op);
    dst += whole;
    have = n - whole * sizeof(T);
    std::memcpy(carry, p + whole * sizeof(T), have);
  }
}

void MergePiece(const std::vector<grpc::Slice>& slices, DType dtype, char* dst, const std::string& op) {
  VisitNumeric(dtype, [&](auto tag) {
    using T = TypeOf<decltype(tag)>;
    MergeSlices(slices, reinterpret_cast<T*>(dst), op);
  });
}

bool TaskLess(const std::string& a, const std::string& b) {
  std::string ja, jb;
  int ta = 0, tb = 0;
  ParseTaskName(a, &ja, &ta);
  ParseTaskName(b, &jb, &tb);
  return std::tie(ja, ta) < std::tie(jb, tb);
}

std::string FirstTask(const ClusterSpec& cluster) {
  for (const auto& [job, tasks] : cluster.job_tasks()) {
    if (!tasks.empty()) return absl::StrCat("/job:", job, "/replica:0/task:", tasks.begin()->first);
  }
  return "";
}

// Threads for collective runs: one per run in progress (a run waits on its peers, and two
// runs of one step may need each other's peers to progress), kept a while when idle so
// that a step's runs do not each start a thread.
class RunThreads {
 public:
  static RunThreads& Get() {
    static auto* threads = new RunThreads;
    return *threads;
  }
  void Schedule(std::function<void()> fn) {
    bool spawn;
    {
      absl::MutexLock l(&mu_);
      queue_.push_back(std::move(fn));
      spawn = static_cast<int>(queue_.size()) > idle_;
    }
    if (spawn) std::thread([this] { Loop(); }).detach();
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> fn;
      {
        absl::MutexLock l(&mu_);
        ++idle_;
        auto ready = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !queue_.empty(); };
        mu_.AwaitWithTimeout(absl::Condition(&ready), absl::Seconds(30));
        --idle_;
        if (queue_.empty()) return;  // Idle for 30 s.
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
  }
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  int idle_ ABSL_GUARDED_BY(mu_) = 0;
};

const char* KindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kReduce: return "CollectiveReduce";
    case CollectiveKind::kBcastSend: return "CollectiveBcastSend";
    case CollectiveKind::kBcastRecv: return "CollectiveBcastRecv";
  }
  return "collective";
}

class CollectiveServiceImpl final : public CollectiveService::WithRawCallbackMethod_Put<CollectiveService::Service> {
 public:
  explicit CollectiveServiceImpl(CollectiveRpc* rpc) : rpc_(rpc) {}

  grpc::Status Join(grpc::ServerContext* ctx, const CollectiveJoinRequest* req, CollectiveJoinResponse* resp) override {
    // The caller's deadline less the margin it gives us to answer (kJoinAnswerMargin), so
    // that it hears which tasks did not come; capped (no call holds a thread for ever).
    absl::Time deadline =
        std::min(absl::FromChrono(ctx->deadline()) - kJoinAnswerMargin, absl::Now() + absl::Hours(1));
    std::vector<std::string> members;
    absl::Status s = rpc_->ServeJoin(req->group_key(), req->group_size(), req->task(), deadline, &members);
    if (s.ok()) {
      for (std::string& m : members) resp->add_task(std::move(m));
    }
    return ToGrpcStatus(s);
  }

  grpc::ServerUnaryReactor* Put(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                grpc::ByteBuffer* resp) override {
    absl::Status s = rpc_->ServePut(*req);
    grpc::Slice empty("");
    *resp = grpc::ByteBuffer(&empty, 1);
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }

 private:
  CollectiveRpc* rpc_;
};

}  // namespace

bool ParseTaskName(const std::string& name, std::string* job, int* task) {
  const std::string kJob = "/job:", kMid = "/replica:0/task:";
  if (name.rfind(kJob, 0) != 0) return false;
  const size_t mid = name.find(kMid);
  if (mid == std::string::npos || mid <= kJob.size()) return false;
  *job = name.substr(kJob.size(), mid - kJob.size());
  return absl::SimpleAtoi(name.substr(mid + kMid.size()), task) && *task >= 0;
}

// The sends of one run still in flight, and the first that failed.
struct CollectiveRpc::Sends {
  absl::Mutex mu;
  int outstanding ABSL_GUARDED_BY(mu) = 0;  // Started or waiting to start.
  int in_flight ABSL_GUARDED_BY(mu) = 0;    // Started.
  std::deque<std::function<void()>> waiting ABSL_GUARDED_BY(mu);
  absl::Status first_error ABSL_GUARDED_BY(mu);
  std::atomic<bool> failed{false};  // first_error is set: wakes the run's waits.
  absl::Status error() {
    absl::MutexLock l(&mu);
    return first_error;
  }
  void WaitAll() {
    absl::MutexLock l(&mu);
    mu.Await(absl::Condition(
        +[](int* n) { return *n == 0; }, &outstanding));
  }
};

struct CollectiveRpc::Exec {
  CollectiveParams params;
  std::string run_key;  // "group/instance/n": the n-th run of this collective here.
  std::vector<std::string> members;
  int rank = 0;
  absl::Duration timeout;
  const std::atomic<bool>* cancelled = nullptr;
  std::shared_ptr<Sends> sends = std::make_shared<Sends>();
  bool prepared = false;  // members, rank and run_key are set.
  bool direct = false;    // Reduced by RunDirect.
  int64_t elements = 0;   // The tensor's size, for errors.
  DType dtype = DType::kFloat;
  bool sent = false;      // RunDirect's sends have started (from `mine`).
  Tensor mine;
  std::string What() const {
    return absl::StrCat(KindName(params.kind), " '", params.node_name, "' (group_key ", params.group_key,
                        ", instance_key ", params.instance_key, ")");
  }
};

CollectiveRpc::CollectiveRpc(ClusterSpec cluster, const std::string& job, int task, absl::Duration rpc_timeout)
    : cluster_(std::move(cluster)),
      task_name_(absl::StrCat("/job:", job, "/replica:0/task:", task)),
      leader_(FirstTask(cluster_)),
      rpc_timeout_(rpc_timeout),
      service_(std::make_unique<CollectiveServiceImpl>(this)) {}

CollectiveRpc::~CollectiveRpc() = default;

void CollectiveRpc::SetClientCredentials(ClientCredentials credentials) {
  absl::MutexLock l(&stubs_mu_);
  credentials_ = std::move(credentials);
  stubs_.clear();
}

grpc::Service* CollectiveRpc::service() { return service_.get(); }

void CollectiveRpc::Shutdown() {
  absl::MutexLock l(&mu_);
  shutdown_ = true;
}

grpc::GenericStub* CollectiveRpc::StubFor(const std::string& task, std::string* address) {
  absl::MutexLock l(&stubs_mu_);
  auto it = stubs_.find(task);
  if (it == stubs_.end()) {
    std::string job, addr;
    int index = 0;
    if (!ParseTaskName(task, &job, &index)) return nullptr;
    auto a = cluster_.address(job, index);
    if (!a.ok()) return nullptr;
    addr = *a;
    it = stubs_.emplace(task, std::make_pair(addr, std::make_unique<grpc::GenericStub>(MakeChannel(addr, credentials_))))
             .first;
  }
  *address = it->second.first;
  return it->second.second.get();
}

absl::Status CollectiveRpc::ServeJoin(int64_t group_key, int group_size, const std::string& task, absl::Time deadline,
                                      std::vector<std::string>* members) {
  std::string job;
  int index = 0;
  if (group_size < 1 || !ParseTaskName(task, &job, &index) || !cluster_.address(job, index).ok()) {
    return absl::InvalidArgumentError(absl::StrCat("collective Join: bad request (group_size ", group_size,
                                                   ", task '", task, "' not in the cluster)"));
  }
  absl::MutexLock l(&mu_);
  LeaderGroup& g = leader_groups_[group_key];
  if (g.size == 0) g.size = group_size;
  if (g.size != group_size) {
    return absl::InvalidArgumentError(absl::StrCat("collective group_key ", group_key, ": task ", task,
                                                   " says group_size ", group_size, " but an earlier member said ",
                                                   g.size));
  }
  if (std::find(g.members.begin(), g.members.end(), task) == g.members.end()) {
    if (static_cast<int>(g.members.size()) >= g.size) {
      return absl::FailedPreconditionError(absl::StrCat("collective group_key ", group_key, " is full (",
                                                        absl::StrJoin(g.members, ", "), "): task ", task,
                                                        " cannot join it"));
    }
    g.members.push_back(task);
  }
  struct Ready {
    const LeaderGroup* g;
    const bool* shutdown;
  } ready{&g, &shutdown_};
  mu_.AwaitWithDeadline(absl::Condition(
                            +[](Ready* r) { return *r->shutdown || static_cast<int>(r->g->members.size()) >= r->g->size; },
                            &ready),
                        deadline);
  if (static_cast<int>(g.members.size()) >= g.size) {
    *members = g.members;
    std::sort(members->begin(), members->end(), TaskLess);
    return absl::OkStatus();
  }
  if (shutdown_) return absl::UnavailableError("collective group leader " + task_name_ + " is stopping");
  std::vector<std::string> absent;
  for (const auto& [j, tasks] : cluster_.job_tasks()) {
    for (const auto& [t, addr] : tasks) {
      std::string name = absl::StrCat("/job:", j, "/replica:0/task:", t);
      if (std::find(g.members.begin(), g.members.end(), name) == g.members.end()) absent.push_back(name);
    }
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "collective group_key ", group_key, " (group_size ", g.size, "): only ", g.members.size(), " member(s) joined (",
      absl::StrJoin(g.members, ", "), ") before the deadline; tasks that never joined: ", absl::StrJoin(absent, ", ")));
}

absl::Status CollectiveRpc::ServePut(const grpc::ByteBuffer& message) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return absl::DataLossError("collective Put: unreadable message");
  SliceCursor cursor(std::move(slices));
  std::string key, abort;
  Piece piece;
  bool has_data = false, has_abort = false;
  while (!cursor.done()) {
    uint64_t tag = 0, len = 0;
    if (!cursor.ReadVarint(&tag) || (tag & 7) != 2 || !cursor.ReadVarint(&len)) {
      return absl::DataLossError("collective Put: malformed message");
    }
    bool ok = false;
    switch (tag >> 3) {
      case 1: ok = key.empty() && cursor.TakeString(len, &key); break;
      case 2:
        ok = !has_data && cursor.Take(len, &piece.slices);
        piece.bytes = len;
        has_data = true;
        break;
      case 3:
        ok = abort.empty() && cursor.TakeString(len, &abort);
        has_abort = true;
        break;
      default: break;
    }
    if (!ok) return absl::DataLossError("collective Put: malformed message");
  }
  if (key.empty() || key.size() > kMaxKeyBytes || abort.size() > kMaxAbortBytes) {
    return absl::DataLossError("collective Put: no key, or a key or reason too long");
  }
  absl::MutexLock l(&mu_);
  if (has_abort) {
    if (aborts_.size() >= kMaxAborts) aborts_.clear();  // Old runs' reasons: nobody waits on them.
    aborts_.emplace(key, abort);
    return absl::OkStatus();
  }
  // Pieces wait here until their run takes them; a sender running far ahead (or pushing
  // runs this task never starts) must not take all the memory.
  if (unclaimed_bytes_ + piece.bytes > kMaxUnclaimedBytes) {
    return absl::ResourceExhaustedError(absl::StrCat("collective Put: ", unclaimed_bytes_,
                                                     " bytes of pieces already wait unclaimed on task ", task_name_));
  }
  const size_t bytes = piece.bytes;
  if (const int algorithm = PieceAlgorithm(key); algorithm != 0) {
    if (algorithms_.size() >= kMaxAborts) algorithms_.clear();  // Old runs': nobody waits on them.
    algorithms_[RunKeyOf(key)] |= algorithm;
  }
  if (!pieces_.emplace(key, std::move(piece)).second) {
    return absl::DataLossError("collective Put: piece " + key + " arrived twice");
  }
  unclaimed_bytes_ += bytes;
  return absl::OkStatus();
}

void CollectiveRpc::Run(const CollectiveParams& params, Tensor data, CancellationManager* cancellation,
                        std::function<void(absl::Status)> done) {
  std::shared_ptr<CollectiveRpc> self = shared_from_this();
  auto x = std::make_shared<Exec>();
  x->params = params;
  x->timeout = params.timeout_seconds > 0 ? absl::Seconds(params.timeout_seconds) : rpc_timeout_;
  x->direct = params.kind == CollectiveKind::kReduce && data.TotalBytes() <= DirectMaxBytes();
  x->elements = data.NumElements();
  x->dtype = data.dtype();
  // A small reduce in a known group sends from the caller's thread (sends do not block):
  // its data leaves while the run's thread wakes up.
  if (x->direct && PrepareFromCache(*x)) SendDirect(*x, data);
  // Its own thread: a run waits on its peers, and the executor's few threads must stay free
  // for the other collectives of the step (whose peers may run them in another order).
  RunThreads::Get().Schedule([self, x, data, cancellation, done = std::move(done)]() mutable {
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    if (cancellation != nullptr) {
      token = cancellation->RegisterCallback([self, cancelled] {
        cancelled->store(true);
        absl::MutexLock l(&self->mu_);  // Wakes the waiter to see the flag.
      });
      if (token == CancellationManager::kInvalidToken) cancelled->store(true);
    }
    x->cancelled = cancelled.get();
    absl::Status s = cancelled->load() && !x->sent ? absl::CancelledError("step cancelled")
                                                   : self->RunBlocking(*x, data);
    if (cancellation != nullptr && token != CancellationManager::kInvalidToken) {
      cancellation->DeregisterCallback(token);
    }
    done(s);
  });
}

bool CollectiveRpc::PrepareFromCache(Exec& x) {
  absl::MutexLock l(&mu_);
  auto it = groups_.find(x.params.group_key);
  if (it == groups_.end() || static_cast<int>(it->second.size()) != x.params.group_size) return false;
  x.members = it->second;
  AssignRun(x);
  return true;
}

void CollectiveRpc::AssignRun(Exec& x) {
  x.rank = static_cast<int>(std::find(x.members.begin(), x.members.end(), task_name_) - x.members.begin());
  x.run_key = absl::StrCat(x.params.group_key, "/", x.params.instance_key, "/",
                           next_run_[{x.params.group_key, x.params.instance_key}]++);
  x.prepared = true;
}

absl::StatusOr<std::vector<std::string>> CollectiveRpc::ResolveGroup(const CollectiveParams& params,
                                                                     absl::Duration timeout) {
  {
    absl::MutexLock l(&mu_);
    auto it = groups_.find(params.group_key);
    if (it != groups_.end()) {
      if (static_cast<int>(it->second.size()) != params.group_size) {
        return absl::InvalidArgumentError(absl::StrCat("collective group_key ", params.group_key, " has ",
                                                       it->second.size(), " members, but node '", params.node_name,
                                                       "' says group_size ", params.group_size));
      }
      return it->second;
    }
  }
  std::string address;
  if (StubFor(leader_, &address) == nullptr) return absl::InternalError("no group leader in the cluster");
  std::shared_ptr<grpc::Channel> channel;
  {
    absl::MutexLock l(&stubs_mu_);
    channel = MakeChannel(address, credentials_);
  }
  auto stub = CollectiveService::NewStub(channel);
  CollectiveJoinRequest req;
  req.set_group_key(params.group_key);
  req.set_group_size(params.group_size);
  req.set_task(task_name_);
  CollectiveJoinResponse resp;
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout + kJoinAnswerMargin));
  ctx.set_wait_for_ready(true);  // Members start in any order: wait for the leader to serve.
  grpc::Status s = stub->Join(&ctx, req, &resp);
  if (!s.ok()) {
    return FromGrpcStatus(s, absl::StrCat("collective group leader task ", leader_, " at ", address));
  }
  std::vector<std::string> members(resp.task().begin(), resp.task().end());
  if (static_cast<int>(members.size()) != params.group_size ||
      std::find(members.begin(), members.end(), task_name_) == members.end()) {
    return absl::InternalError("collective group leader answered a group without this task");
  }
  absl::MutexLock l(&mu_);
  groups_[params.group_key] = members;
  return members;
}

absl::Status CollectiveRpc::RunBlocking(Exec& x, Tensor& data) {
  const CollectiveParams& params = x.params;
  if (!x.prepared) {
    auto members = ResolveGroup(params, x.timeout);
    if (!members.ok()) {
      return absl::Status(members.status().code(), absl::StrCat(x.What(), ": ", members.status().message()));
    }
    x.members = std::move(*members);
    absl::MutexLock l(&mu_);
    AssignRun(x);
  }
  absl::Status s;
  const bool direct = x.direct;
  if (direct) {
    s = RunDirect(x, data);
  } else {
    s = params.kind != CollectiveKind::kReduce ? RunBroadcast(x, data)
        : SharedMemoryRun(x)                    ? RunShared(x, data)
                                                : RunRing(x, data);
  }
  // Every send answered before the result is handed on: the result's consumers may write
  // into it, and the receivers must not see that. Direct sends come from a copy: a
  // successful run need not wait for their answers (it has every member's data).
  if (!direct || !s.ok()) {
    x.sends->WaitAll();
    if (s.ok()) s = x.sends->error();
  }
  if (!s.ok() && s.code() != absl::StatusCode::kAborted) SendAbort(x, std::string(s.message()));
  {
    // Pieces of this run that will not be read (it failed part way).
    absl::MutexLock l(&mu_);
    algorithms_.erase(x.run_key);
    const std::string prefix = x.run_key + "/";
    absl::erase_if(pieces_, [&](const auto& kv) ABSL_NO_THREAD_SAFETY_ANALYSIS {
      if (kv.first.rfind(prefix, 0) != 0) return false;
      unclaimed_bytes_ -= kv.second.bytes;
      return true;
    });
  }
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(x.What(), " on task ", task_name_, ": ", s.message()));
  return s;
}

absl::Status CollectiveRpc::WaitPiece(const Exec& x, const std::string& key, const std::string& from, Piece* out) {
  struct Ready {
    CollectiveRpc* self;
    const std::string* key;
    const std::string* run;
    int other_algorithm;  // the reduce algorithm this run does not use (0: a broadcast)
    const std::atomic<bool>* cancelled;
    const std::atomic<bool>* send_failed;
    bool Mismatch() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
      auto it = self->algorithms_.find(*run);
      return other_algorithm != 0 && it != self->algorithms_.end() && (it->second & other_algorithm) != 0;
    }
  } ready{this, &key, &x.run_key, x.params.kind != CollectiveKind::kReduce ? 0 : x.direct ? 2 : 1,
          x.cancelled, &x.sends->failed};
  absl::MutexLock l(&mu_);
  mu_.AwaitWithDeadline(absl::Condition(
                            +[](Ready* r) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                              return r->self->pieces_.contains(*r->key) || r->self->aborts_.contains(*r->run) ||
                                     r->Mismatch() || r->cancelled->load() || r->send_failed->load() ||
                                     r->self->shutdown_;
                            },
                            &ready),
                        absl::Now() + x.timeout);
  if (auto it = pieces_.find(key); it != pieces_.end()) {
    *out = std::move(it->second);
    unclaimed_bytes_ -= out->bytes;
    pieces_.erase(it);
    return absl::OkStatus();
  }
  if (auto it = aborts_.find(x.run_key); it != aborts_.end()) return absl::AbortedError(it->second);
  if (ready.Mismatch()) return AlgorithmMismatch(x.elements, x.dtype);
  if (x.cancelled->load()) return absl::CancelledError("step cancelled");
  if (x.sends->failed.load()) return x.sends->error();  // This task's send failed: no use waiting.
  if (shutdown_) return absl::UnavailableError("the server is stopping");
  return absl::DeadlineExceededError(absl::StrCat("no data from ", from, " within ", absl::FormatDuration(x.timeout),
                                                  " (is it down, or not running this collective?)"));
}

void CollectiveRpc::SendPiece(Exec& x, const std::string& to, const std::string& key, const Tensor& data,
                              size_t offset, size_t bytes) {
  std::string address;
  grpc::GenericStub* stub = StubFor(to, &address);
  if (stub == nullptr) {
    absl::MutexLock l(&x.sends->mu);
    if (x.sends->first_error.ok()) x.sends->first_error = absl::InternalError("no address for task " + to);
    return;
  }
  struct Call {
    grpc::ClientContext ctx;
    grpc::ByteBuffer req, resp;
  };
  auto* call = new Call;
  call->ctx.set_deadline(absl::ToChronoTime(absl::Now() + x.timeout));
  std::string head;
  head.push_back(0x0a);
  AppendVarint(&head, key.size());
  head += key;
  head.push_back(0x12);
  AppendVarint(&head, bytes);
  grpc::Slice slices[2];
  size_t count = 0;
  slices[count++] = grpc::Slice(head);
  if (bytes > 0) {
    char* p = static_cast<char*>(data.raw_data()) + offset;
    slices[count++] = grpc::Slice(p, bytes, &ReleaseTensorRef, new Tensor(data));
  }
  call->req = grpc::ByteBuffer(slices, count);
  std::shared_ptr<Sends> sends = x.sends;
  std::shared_ptr<CollectiveRpc> self = shared_from_this();  // The stub outlives the call.
  std::string who = absl::StrCat("task ", to, " at ", address);
  auto start = [stub, call, sends, self, who] {
    stub->UnaryCall(&call->ctx, kPutMethod, grpc::StubOptions(), &call->req, &call->resp,
                    [call, sends, self, who](grpc::Status s) {
                      delete call;
                      std::function<void()> next;
                      {
                        absl::MutexLock l(&sends->mu);
                        if (!s.ok() && sends->first_error.ok()) {
                          sends->first_error = absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                                                            absl::StrCat(who, ": ", s.error_message()));
                          sends->failed.store(true);
                        }
                        --sends->outstanding;
                        if (sends->waiting.empty()) {
                          --sends->in_flight;
                        } else {
                          next = std::move(sends->waiting.front());
                          sends->waiting.pop_front();
                        }
                      }
                      if (!s.ok()) {
                        absl::MutexLock wake(&self->mu_);  // The run's wait sees `failed`.
                      }
                      if (next) next();
                    });
  };
  {
    // A few pieces in flight at once: more interleave on the connection, so that no piece
    // arrives whole until nearly all have, and the ring's pipeline stalls.
    absl::MutexLock l(&sends->mu);
    ++sends->outstanding;
    if (sends->in_flight >= SendWindow()) {
      sends->waiting.push_back(std::move(start));
      return;
    }
    ++sends->in_flight;
  }
  start();
}

void CollectiveRpc::SendAbort(const Exec& x, const std::string& reason) {
  const std::string text = absl::StrCat("collective aborted by task ", task_name_, ": ", reason);
  for (const std::string& to : x.members) {
    if (to == task_name_) continue;
    std::string address;
    grpc::GenericStub* stub = StubFor(to, &address);
    if (stub == nullptr) continue;
    struct Call {
      grpc::ClientContext ctx;
      grpc::ByteBuffer req, resp;
    };
    auto* call = new Call;
    call->ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    std::string msg;
    msg.push_back(0x0a);
    AppendVarint(&msg, x.run_key.size());
    msg += x.run_key;
    msg.push_back(0x1a);
    AppendVarint(&msg, text.size());
    msg += text;
    grpc::Slice slice(msg);
    call->req = grpc::ByteBuffer(&slice, 1);
    std::shared_ptr<CollectiveRpc> self = shared_from_this();
    stub->UnaryCall(&call->ctx, kPutMethod, grpc::StubOptions(), &call->req, &call->resp,
                    [call, self](grpc::Status) { delete call; });  // Best effort: the peer may be gone.
  }
}

namespace {
// Direct pieces: of at most PieceBytes(), whole elements.
size_t DirectPieceBytes(const Tensor& data) {
  const size_t esize = DTypeSize(data.dtype());
  return std::max<size_t>(esize, PieceBytes() / esize * esize);
}

absl::Status SizeMismatch(const std::string& from, size_t got, size_t want, const Tensor& data) {
  return absl::InvalidArgumentError(absl::StrCat("task ", from, " sent ", got, " bytes where ", want,
                                                 " were expected: the members' tensors differ in size (this one has ",
                                                 data.NumElements(), " elements of ", DTypeName(data.dtype()), ")"));
}
}  // namespace

void CollectiveRpc::SendDirect(Exec& x, const Tensor& data) {
  const int n = static_cast<int>(x.members.size());
  const size_t total = data.TotalBytes(), piece_bytes = DirectPieceBytes(data);
  const int64_t pieces = std::max<int64_t>(1, static_cast<int64_t>((total + piece_bytes - 1) / piece_bytes));
  // This member's values are sent from a copy: `data` becomes the result meanwhile.
  x.mine = data.Copy();
  for (int64_t p = 0; p < pieces; ++p) {
    const size_t off = p * piece_bytes, bytes = std::min(piece_bytes, total - off);
    const std::string key = absl::StrCat(x.run_key, "/d/", x.rank, "/", p);
    for (int i = 1; i < n; ++i) SendPiece(x, x.members[(x.rank + i) % n], key, x.mine, off, bytes);
  }
  x.sent = true;
}

absl::Status CollectiveRpc::RunDirect(Exec& x, Tensor& data) {
  if (!x.sent) SendDirect(x, data);
  const int n = static_cast<int>(x.members.size());
  const size_t total = data.TotalBytes(), piece_bytes = DirectPieceBytes(data);
  const int64_t pieces = std::max<int64_t>(1, static_cast<int64_t>((total + piece_bytes - 1) / piece_bytes));
  auto key = [&](int from, int64_t p) { return absl::StrCat(x.run_key, "/d/", from, "/", p); };
  char* base = static_cast<char*>(data.raw_data());
  const char* own = static_cast<const char*>(x.mine.raw_data());
  for (int64_t p = 0; p < pieces; ++p) {
    const size_t off = p * piece_bytes, bytes = std::min(piece_bytes, total - off);
    // Rank order on every member: the same operands in the same order give the same bits.
    for (int i = 0; i < n; ++i) {
      if (i == x.rank) {
        if (i == 0 || bytes == 0) continue;  // `data` already holds it.
        grpc::Slice slice(own + off, bytes, grpc::Slice::STATIC_SLICE);
        MergePiece({slice}, data.dtype(), base + off, x.params.merge_op);
        continue;
      }
      Piece piece;
      TW_RETURN_IF_ERROR(WaitPiece(x, key(i, p), "task " + x.members[i], &piece));
      if (piece.bytes != bytes) return SizeMismatch(x.members[i], piece.bytes, bytes, data);
      if (i == 0) {
        CopyPiece(piece.slices, base + off);
      } else {
        MergePiece(piece.slices, data.dtype(), base + off, x.params.merge_op);
      }
    }
    TW_RETURN_IF_ERROR(x.sends->error());
  }
  return absl::OkStatus();
}

bool CollectiveRpc::SharedMemoryRun(const Exec& x) {
  const char* env = std::getenv("TW_COLLECTIVE_SHM");  // read per run: tests try both ways
  if ((env != nullptr && std::string(env) == "0") || x.members.size() < 2) return false;
  std::vector<std::string> addresses;
  for (const std::string& m : x.members) {
    std::string address;
    if (StubFor(m, &address) == nullptr) return false;
    addresses.push_back(address);
  }
  return AllLoopback(addresses);
}

absl::Status CollectiveRpc::SignalAll(Exec& x, const std::string& what, const Tensor& payload,
                                     std::vector<Piece>* received) {
  const int n = static_cast<int>(x.members.size());
  for (int i = 1; i < n; ++i) {
    SendPiece(x, x.members[(x.rank + i) % n], absl::StrCat(x.run_key, "/", what, "/", x.rank), payload, 0,
              payload.TotalBytes());
  }
  if (received != nullptr) received->assign(n, Piece());
  for (int i = 1; i < n; ++i) {
    const int from = (x.rank + i) % n;
    Piece piece;
    TW_RETURN_IF_ERROR(WaitPiece(x, absl::StrCat(x.run_key, "/", what, "/", from), "task " + x.members[from], &piece));
    if (received != nullptr) (*received)[from] = std::move(piece);
  }
  return absl::OkStatus();
}

namespace {
std::string SegmentName(uint64_t token) { return absl::StrCat("/tw-collective-", absl::Hex(token, absl::kZeroPad16)); }
}  // namespace

// A run's buffers: this member's segment and its peers', kept for the next run of the same
// (group, instance, size, run parity). Two parities: a peer may still copy the previous
// run's result out of this member's segment while this member starts the next run, but
// not the one before (it sent this run's signal only after finishing that one).
struct CollectiveRpc::SharedBuffers {
  uint64_t token = 0;  // names this member's segment ("/tw-collective-<token>")
  SharedSegment own;
  std::vector<uint64_t> peer_tokens;
  std::vector<SharedSegment> peers;
  bool in_use = false;
};

absl::StatusOr<std::shared_ptr<CollectiveRpc::SharedBuffers>> CollectiveRpc::AcquireBuffers(const Exec& x,
                                                                                             size_t bytes,
                                                                                             std::string* key) {
  // Kept up to this many bytes of segments; beyond, runs make their own.
  constexpr size_t kMaxCachedBytes = size_t{1} << 30;
  const std::string run = x.run_key.substr(x.run_key.rfind('/') + 1);
  int64_t number = 0;
  (void)absl::SimpleAtoi(run, &number);
  *key = absl::StrCat(x.params.group_key, "/", x.params.instance_key, "/", bytes, "/", number % 2);
  {
    absl::MutexLock l(&mu_);
    auto it = shared_buffers_.find(*key);
    if (it != shared_buffers_.end() && !it->second->in_use) {
      it->second->in_use = true;
      return it->second;
    }
  }
  auto buffers = std::make_shared<SharedBuffers>();
  absl::BitGen random;
  buffers->token = absl::Uniform<uint64_t>(random);
  TW_ASSIGN_OR_RETURN(buffers->own, SharedSegment::Create(SegmentName(buffers->token), bytes));
  buffers->peer_tokens.assign(x.members.size(), 0);
  buffers->peers.resize(x.members.size());
  buffers->in_use = true;
  absl::MutexLock l(&mu_);
  if (!shared_buffers_.contains(*key) && shared_bytes_ + bytes <= kMaxCachedBytes) {
    shared_buffers_[*key] = buffers;
    shared_bytes_ += bytes;
  } else {
    key->clear();  // not kept: dropped after the run
  }
  return buffers;
}

void CollectiveRpc::ReleaseBuffers(const std::string& key, const std::shared_ptr<SharedBuffers>& buffers, bool ok,
                                   size_t bytes) {
  absl::MutexLock l(&mu_);
  buffers->in_use = false;
  // After a failure the peers may hold other segments: nothing of this one is trusted again.
  if (!ok && !key.empty() && shared_buffers_.erase(key) > 0) shared_bytes_ -= bytes;
}

absl::Status CollectiveRpc::RunShared(Exec& x, Tensor& data) {
  const size_t total = data.TotalBytes();
  std::string key;
  TW_ASSIGN_OR_RETURN(std::shared_ptr<SharedBuffers> buffers, AcquireBuffers(x, total, &key));
  const absl::Status s = RunSharedWith(x, data, *buffers);
  ReleaseBuffers(key, buffers, s.ok(), total);
  return s;
}

absl::Status CollectiveRpc::RunSharedWith(Exec& x, Tensor& data, SharedBuffers& b) {
  const int n = static_cast<int>(x.members.size());
  const size_t total = data.TotalBytes(), esize = DTypeSize(data.dtype());
  const int64_t count = data.NumElements();
  auto begin = [&](int c) { return static_cast<size_t>(count * c / n) * esize; };
  std::memcpy(b.own.data(), data.raw_data(), total);
  // Every member's tensor is in its segment. The signals carry each member's size and
  // segment token: sizes are checked alike on every member before anything is opened, and
  // a peer's segment is (re)opened when its token is new.
  Tensor mine(DType::kInt64, TensorShape({2}));
  mine.flat<int64_t>()[0] = static_cast<int64_t>(total);
  mine.flat<int64_t>()[1] = static_cast<int64_t>(b.token);
  std::vector<Piece> signals;
  TW_RETURN_IF_ERROR(SignalAll(x, "m", mine, &signals));
  std::vector<int64_t> theirs(2 * n);
  for (int i = 0; i < n; ++i) {
    if (i == x.rank) continue;
    if (signals[i].bytes != 2 * sizeof(int64_t)) return absl::DataLossError("collective: malformed signal");
    CopyPiece(signals[i].slices, reinterpret_cast<char*>(&theirs[2 * i]));
    if (theirs[2 * i] != static_cast<int64_t>(total)) {
      return SizeMismatch(x.members[i], static_cast<size_t>(theirs[2 * i]), total, data);
    }
  }
  std::vector<const char*> segment(n);
  for (int i = 0; i < n; ++i) {
    if (i == x.rank) {
      segment[i] = b.own.data();
      continue;
    }
    const uint64_t token = static_cast<uint64_t>(theirs[2 * i + 1]);
    if (b.peer_tokens[i] != token) {
      b.peer_tokens[i] = 0;
      absl::StatusOr<SharedSegment> peer = SharedSegment::Open(SegmentName(token), total);
      if (!peer.ok()) {
        return absl::Status(peer.status().code(),
                            absl::StrCat("task ", x.members[i], "'s shared memory: ", peer.status().message(),
                                         " (members with loopback addresses must share /dev/shm; "
                                         "TW_COLLECTIVE_SHM=0 on every member keeps the ring)"));
      }
      b.peers[i] = std::move(*peer);
      b.peer_tokens[i] = token;
    }
    segment[i] = b.peers[i].data();
  }
  // This member's chunk, reduced in rank order, into the result and its segment.
  char* out = static_cast<char*>(data.raw_data());
  const size_t off = begin(x.rank), bytes = begin(x.rank + 1) - off;
  if (bytes > 0) {
    std::memcpy(out + off, segment[0] + off, bytes);
    for (int i = 1; i < n; ++i) {
      grpc::Slice slice(segment[i] + off, bytes, grpc::Slice::STATIC_SLICE);
      MergePiece({slice}, data.dtype(), out + off, x.params.merge_op);
    }
    std::memcpy(b.own.data() + off, out + off, bytes);
  }
  // Every chunk is reduced, and every member has mapped every segment: names are not needed.
  TW_RETURN_IF_ERROR(SignalAll(x, "r", Tensor(DType::kUint8, TensorShape({0}))));
  b.own.Unlink();
  for (int i = 0; i < n; ++i) {
    if (i != x.rank) std::memcpy(out + begin(i), segment[i] + begin(i), begin(i + 1) - begin(i));
  }
  return absl::OkStatus();
}

absl::Status CollectiveRpc::RunRing(Exec& x, Tensor& data) {
  const int n = static_cast<int>(x.members.size());
  const int r = x.rank;
  const std::string& next = x.members[(r + 1) % n];
  const std::string& prev = x.members[(r + n - 1) % n];
  const std::string prev_name = "task " + prev;
  const int64_t count = data.NumElements();
  const size_t esize = DTypeSize(data.dtype());
  const int64_t piece_elems = std::max<int64_t>(1, static_cast<int64_t>(PieceBytes() / esize));
  auto chunk_begin = [&](int c) { return count * c / n; };
  auto pieces_of = [&](int c) {
    const int64_t len = chunk_begin(c + 1) - chunk_begin(c);
    return (len + piece_elems - 1) / piece_elems;
  };
  // Piece p of chunk c: [first, first + len) elements.
  auto piece_range = [&](int c, int64_t p, int64_t* first, int64_t* len) {
    *first = chunk_begin(c) + p * piece_elems;
    *len = std::min(piece_elems, chunk_begin(c + 1) - *first);
  };
  auto key = [&](int step, int64_t p) { return absl::StrCat(x.run_key, "/", step, "/", p); };
  const int steps = 2 * (n - 1);
  // Step s sends chunk (r - s) mod n and receives chunk (r - s - 1) mod n, in both phases
  // (reduce-scatter: s < n - 1, merging; all-gather: copying): so the chunk received at
  // step s is the one sent at step s + 1, piece by piece.
  auto recv_chunk = [&](int s) { return ((r - s - 1) % n + n) % n; };
  char* base = static_cast<char*>(data.raw_data());
  for (int64_t p = 0; p < pieces_of(r); ++p) {
    int64_t first, len;
    piece_range(r, p, &first, &len);
    SendPiece(x, next, key(0, p), data, first * esize, len * esize);
  }
  for (int s = 0; s < steps; ++s) {
    const int c = recv_chunk(s);
    for (int64_t p = 0; p < pieces_of(c); ++p) {
      int64_t first, len;
      piece_range(c, p, &first, &len);
      Piece piece;
      TW_RETURN_IF_ERROR(WaitPiece(x, key(s, p), prev_name, &piece));
      const size_t bytes = len * esize;
      if (piece.bytes != bytes) return SizeMismatch(prev, piece.bytes, bytes, data);
      char* dst = base + first * esize;
      if (s < n - 1) {
        MergePiece(piece.slices, data.dtype(), dst, x.params.merge_op);
      } else {
        CopyPiece(piece.slices, dst);
      }
      if (s + 1 < steps) SendPiece(x, next, key(s + 1, p), data, first * esize, bytes);
      TW_RETURN_IF_ERROR(x.sends->error());
    }
  }
  return absl::OkStatus();
}

absl::Status CollectiveRpc::RunBroadcast(Exec& x, Tensor& data) {
  const size_t total = data.TotalBytes();
  const int64_t pieces = static_cast<int64_t>((total + PieceBytes() - 1) / PieceBytes());
  auto key = [&](int64_t p) { return absl::StrCat(x.run_key, "/b/", p); };
  if (x.params.kind == CollectiveKind::kBcastSend) {
    for (const std::string& to : x.members) {
      if (to == task_name_) continue;
      for (int64_t p = 0; p < pieces; ++p) {
        const size_t off = p * PieceBytes();
        SendPiece(x, to, key(p), data, off, std::min(PieceBytes(), total - off));
      }
    }
    return absl::OkStatus();
  }
  const std::string from = absl::StrCat("the broadcast's sender (one of ", absl::StrJoin(x.members, ", "), ")");
  char* base = static_cast<char*>(data.raw_data());
  for (int64_t p = 0; p < pieces; ++p) {
    Piece piece;
    TW_RETURN_IF_ERROR(WaitPiece(x, key(p), from, &piece));
    const size_t off = p * PieceBytes();
    const size_t bytes = std::min(PieceBytes(), total - off);
    if (piece.bytes != bytes) {
      return absl::InvalidArgumentError(absl::StrCat("the broadcast's sender sent ", piece.bytes, " bytes where ",
                                                     bytes, " were expected: its tensor differs from shape ",
                                                     data.shape().DebugString()));
    }
    CopyPiece(piece.slices, base + off);
  }
  return absl::OkStatus();
}

}  // namespace tw
