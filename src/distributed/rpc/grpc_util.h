// Status and channel plumbing between absl and gRPC.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_UTIL_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "distributed/message_limits.h"
#include "distributed/rpc/grpc_security.h"

namespace tw {

// Tensors are large: channels lift gRPC's 4 MiB default to kMaxMessageBytes.

// The message travels in a trailer, which clients cap (gRPC's default: 8 KiB of metadata):
// a longer one, which can only come from echoed input, is cut in the middle.
inline constexpr size_t kMaxStatusMessageBytes = 4096;

inline grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  absl::string_view message = s.message();
  if (message.size() <= kMaxStatusMessageBytes) {
    return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(message));
  }
  const size_t half = kMaxStatusMessageBytes / 2;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      absl::StrCat(message.substr(0, half), " ...(", message.size() - 2 * half, " bytes cut)... ",
                                   message.substr(message.size() - half)));
}

// `who` names the peer ("task /job:ps/replica:0/task:0 at localhost:2222") in transport errors.
inline absl::Status FromGrpcStatus(const grpc::Status& s, const std::string& who) {
  if (s.ok()) return absl::OkStatus();
  auto code = static_cast<absl::StatusCode>(s.error_code());
  if (code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kDeadlineExceeded) {
    return absl::Status(code, absl::StrCat(who, ": ", s.error_message()));
  }
  return absl::Status(code, s.error_message());
}

// A channel presenting `credentials` (default: plaintext, no token).
inline std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                                  const ClientCredentials& credentials = {}) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // Reconnect quickly after a task restarts.
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  // The least time one connection attempt (TCP, then HTTP/2 up to the server's SETTINGS
  // frame) is given; gRPC's default is 20 s. 500 ms failed calls to busy tasks on a loaded
  // machine or under TSan ("timed out before receiving SETTINGS frame"). A refused
  // connection (a task down or restarting) still fails at once and is retried as above.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 5000);
  auto channel_credentials = credentials.channel ? credentials.channel : grpc::InsecureChannelCredentials();
  if (credentials.token.empty()) return grpc::CreateCustomChannel(address, channel_credentials, args);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(MakeTokenInterceptorFactory(credentials.token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, channel_credentials, args,
                                                                 std::move(interceptors));
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_UTIL_H_
