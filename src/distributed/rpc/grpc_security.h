// TransportSecurity (tensorweave/security.h) in gRPC terms: PEM files and the token loaded
// and checked once, server credentials that demand them, channel credentials that present
// them, and the loopback rule for servers without them.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_SECURITY_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_SECURITY_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "tensorweave/security.h"

namespace tw {

// The contents of a TransportSecurity's files.
struct SecurityMaterial {
  std::string cert_pem, key_pem, ca_pem;
  std::string token;
  // A server serves TLS when it has a certificate; a client uses TLS when it has a CA or a
  // certificate.
  bool server_tls() const { return !cert_pem.empty(); }
  bool client_tls() const { return !cert_pem.empty() || !ca_pem.empty(); }
};

// Reads and checks the files: InvalidArgument naming the file for one that cannot be read
// or is not PEM, a certificate without its key (or the reverse), a bad token, or (for a
// server) a CA without a certificate to serve TLS with.
enum class SecurityRole { kClient, kServer };
absl::StatusOr<SecurityMaterial> LoadSecurityMaterial(const TransportSecurity& security, SecurityRole role);

// What a client channel presents: TLS (or plain) channel credentials, and the token that
// goes in every call's `authorization: Bearer` metadata (none when empty).
struct ClientCredentials {
  std::shared_ptr<grpc::ChannelCredentials> channel;  // null: plaintext
  std::string token;
};
ClientCredentials MakeClientCredentials(const SecurityMaterial& material);

// The client interceptor that adds `authorization: Bearer <token>` to every call of a
// channel (MakeChannel in grpc_util.h installs it); plaintext channels carry it too.
std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface> MakeTokenInterceptorFactory(
    const std::string& token);

// TLS with the certificate (requiring client certificates signed by the CA when there is
// one) or plaintext; with a token, every call whose metadata lacks it is refused with
// Unauthenticated before any handler runs.
std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(const SecurityMaterial& material);

// Whether a server with `material` may listen on `address` (host:port): a loopback host
// always; any other only with TLS or a token, or when `insecure_allow_remote` (then it
// returns OK and `warning` says why that is unsafe). FailedPrecondition naming the address
// and the flags to give otherwise.
absl::Status CheckListenAddress(const std::string& address, const SecurityMaterial& material,
                                bool insecure_allow_remote, std::string* warning);

// a == b in time that depends only on the lengths (no early exit on the first difference).
bool ConstantTimeEquals(const std::string& a, const std::string& b);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_SECURITY_H_
