// Moving a 64 MiB tensor between two tasks (a variable read on task 1, consumed on task 0)
// against, in the same run: a raw gRPC unary call returning the same 64 MiB payload (a
// bare server with a prebuilt reply), and plain TCP on loopback
// (1 MiB writes). Medians of GB/s over repeated transfers.
// The raw gRPC peer is one unary message carrying 64 MiB of bytes.
//   distributed_transfer [--repeats N] [--cluster_spec 'local|HOST:P;HOST:Q']
// Without --cluster_spec the two tasks are servers in this process; with it, the tasks of
// job "local" of running `tw server` processes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "core/net_util.h"
#include "distributed/rpc/grpc_util.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/process.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "timing.h"

namespace {

constexpr int64_t kBytes = 64 << 20;

template <typename Fn>
double MedianGBps(int repeats, Fn&& fn) {
  return kBytes / tw::bench::MedianSeconds(repeats, /*warmup=*/1, fn) / 1e9;
}

// The raw peer: GetStatus answers with the same prebuilt 64 MiB reply (in the device
// list) every time: one plain unary gRPC message.
class RawService final : public tw::WorkerService::Service {
 public:
  RawService() { reply_.add_device(std::string(kBytes, '\1')); }
  grpc::Status GetStatus(grpc::ServerContext*, const tw::GetStatusRequest*, tw::GetStatusResponse* resp) override {
    *resp = reply_;
    return grpc::Status::OK;
  }

 private:
  tw::GetStatusResponse reply_;
};

double TcpGBps(int repeats) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  listen(listener, 1);
  std::vector<char> out(kBytes, 1), in(kBytes);
  const int rounds = repeats + 1;
  std::thread sender([&] {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    for (int r = 0; r < rounds; ++r) {
      for (int64_t off = 0; off < kBytes;) off += write(fd, out.data() + off, std::min<int64_t>(1 << 20, kBytes - off));
      char ack;
      if (read(fd, &ack, 1) != 1) break;
    }
    close(fd);
  });
  int fd = accept(listener, nullptr, nullptr);
  double result = MedianGBps(repeats, [&] {
    for (int64_t got = 0; got < kBytes;) {
      ssize_t n = read(fd, in.data() + got, kBytes - got);
      if (n <= 0) break;
      got += n;
    }
    char ack = 1;
    if (write(fd, &ack, 1) != 1) std::perror("ack");
  });
  sender.join();
  close(fd);
  close(listener);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  int repeats = 15;
  std::string spec;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--cluster_spec")) spec = argv[i + 1];
  }

  tw::InProcessCluster cluster;
  if (spec.empty()) {
    cluster = tw::ValueOrThrow(tw::StartInProcessCluster("local", 2));
  } else {
    cluster.spec = tw::ValueOrThrow(tw::ClusterSpec::Parse(spec));
  }
  tw::Graph g;
  tw::Variable big;
  {
    auto on = g.device("/job:local/task:1");
    big = tw::Variable(g, tw::fill(g, {kBytes / 4}, tw::constant(g, 1.0f)), "big");
  }
  tw::Output consumed;
  {
    auto on = g.device("/job:local/task:0");
    consumed = tw::size(tw::identity(big.value()));  // Needs the bytes on task 0, returns 4 bytes.
  }
  tw::Session sess(g, "grpc://" + *cluster.spec.address("local", 0));
  sess.run(tw::global_variables_initializer(g));
  double ours = MedianGBps(repeats, [&] { sess.run(consumed); });

  int raw_port = *tw::PickFreeLoopbackPort();
  RawService raw;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("localhost:" + std::to_string(raw_port), grpc::InsecureServerCredentials());
  builder.SetMaxSendMessageSize(tw::kMaxMessageBytes);
  builder.SetMaxReceiveMessageSize(tw::kMaxMessageBytes);
  builder.RegisterService(&raw);
  auto raw_server = builder.BuildAndStart();
  auto stub = tw::WorkerService::NewStub(tw::MakeChannel("localhost:" + std::to_string(raw_port)));
  double grpc_raw = MedianGBps(repeats, [&] {
    grpc::ClientContext ctx;
    tw::GetStatusResponse resp;
    stub->GetStatus(&ctx, tw::GetStatusRequest(), &resp);
  });
  double tcp = TcpGBps(repeats);

  std::printf("64 MiB tensor task 1 -> task 0 (tensorweave step): %.2f GB/s median of %d\n", ours, repeats);
  std::printf("raw gRPC unary call returning 64 MiB:             %.2f GB/s\n", grpc_raw);
  std::printf("plain TCP on loopback, 1 MiB writes:              %.2f GB/s\n", tcp);
  std::printf("tensorweave / raw gRPC = %.0f%% (target >= 80%%), / TCP = %.0f%% (target >= 50%%)\n",
              100 * ours / grpc_raw, 100 * ours / tcp);
  std::printf("RESULT gb_per_s=%.3f grpc_gb_per_s=%.3f tcp_gb_per_s=%.3f\n", ours, grpc_raw, tcp);
  raw_server->Shutdown();
  return 0;
}
