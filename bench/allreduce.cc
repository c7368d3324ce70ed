// All-reduce latency and bus bandwidth of tensorweave's ring (the CollectiveRuntime that a
// CollectiveReduce kernel calls, src/distributed/rpc/collective_rpc.h) between real
// server processes on loopback: one process per rank, each serving its task and calling
// the runtime directly, as torch.distributed.all_reduce is called (bench/torch_allreduce.py).
//   allreduce --rank R --ports P0,P1,... [--bytes 1024,1048576,67108864] [--iters 20]
// Rank 0 prints per size: RESULT bytes=B ranks=N us=<median> busbw_gbs=<2(N-1)/N * B / t>.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <chrono>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "bench/timing.h"
#include "kernels/collective.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

std::vector<int64_t> ParseList(const std::string& s) {
  std::vector<int64_t> out;
  for (absl::string_view v : absl::StrSplit(s, ',')) {
    int64_t x = 0;
    if (!absl::SimpleAtoi(v, &x)) {
      std::fprintf(stderr, "allreduce: bad number '%s'\n", std::string(v).c_str());
      std::exit(2);
    }
    out.push_back(x);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  int rank = -1, iters = 20;
  std::string ports, bytes_list = "1024,1048576,67108864";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--rank") rank = std::atoi(value.c_str());
    else if (flag == "--ports") ports = value;
    else if (flag == "--bytes") bytes_list = value;
    else if (flag == "--iters") iters = std::atoi(value.c_str());
    else {
      std::fprintf(stderr, "allreduce: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::vector<std::string> addresses;
  for (int64_t p : ParseList(ports)) addresses.push_back(absl::StrCat("localhost:", p));
  const int n = static_cast<int>(addresses.size());
  if (rank < 0 || rank >= n) {
    std::fprintf(stderr, "usage: allreduce --rank R --ports P0,P1,... [--bytes B,...] [--iters N]\n");
    return 2;
  }
  auto cluster = tw::ValueOrThrow(tw::ClusterSpec::FromJobs({{"worker", addresses}}));
  auto server = tw::ValueOrThrow(tw::Server::Create(cluster, "worker", rank));
  tw::ThrowIfError(server->Start());
  const std::string device = absl::StrCat("/job:worker/replica:0/task:", rank, "/device:CPU:0");
  std::shared_ptr<tw::CollectiveRuntime> runtime = tw::FindCollectiveRuntime(device);
  int64_t instance = 0;
  for (int64_t bytes : ParseList(bytes_list)) {
    tw::Tensor data(tw::DType::kFloat, tw::TensorShape({bytes / 4}));
    tw::CollectiveParams params;
    params.node_name = "bench";
    params.group_size = n;
    params.group_key = 1;
    params.instance_key = ++instance;
    auto reduce = [&] {
      absl::Notification done;
      absl::Status status;
      runtime->Run(params, data, nullptr, [&](absl::Status s) {
        status = s;
        done.Notify();
      });
      done.WaitForNotification();
      tw::ThrowIfError(status);
    };
    // Checked once: every rank's ones sum to n.
    for (float& v : data.flat<float>()) v = 1;
    reduce();
    for (float v : data.flat<float>()) {
      if (v != n) {
        std::fprintf(stderr, "allreduce: wrong sum %g (want %d)\n", v, n);
        return 1;
      }
    }
    for (float& v : data.flat<float>()) v = 0;  // Stays finite while timed.
    const double seconds = tw::bench::MedianSeconds(iters, 3, reduce);
    if (rank == 0) {
      const double busbw = 2.0 * (n - 1) / n * static_cast<double>(bytes) / seconds / 1e9;
      std::printf("RESULT bytes=%lld ranks=%d us=%.1f busbw_gbs=%.3f\n", static_cast<long long>(bytes), n,
                  seconds * 1e6, busbw);
      std::fflush(stdout);
    }
  }
  // Let the others finish their last receive before this task stops serving.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  server->Stop();
  return 0;
}
