#include "distributed/rpc/grpc_security.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <grpc/grpc_security.h>
#include <grpc/slice.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/net_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

constexpr char kAuthorizationKey[] = "authorization";
constexpr char kBearerPrefix[] = "Bearer ";
constexpr size_t kMinTokenLength = 16;
constexpr size_t kMaxTokenLength = 4096;
constexpr std::streamsize kMaxPemBytes = 1 << 20;  // A certificate bundle, not a stream.

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, " '", path, "'"));
  std::string data(kMaxPemBytes + 1, '\0');
  in.read(data.data(), data.size());
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, " '", path, "'"));
  data.resize(in.gcount());
  if (data.size() > static_cast<size_t>(kMaxPemBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", path, "' is larger than 1 MiB"));
  }
  return data;
}

absl::StatusOr<std::string> ReadPem(const std::string& path, const std::string& what, const std::string& label) {
  TW_ASSIGN_OR_RETURN(std::string pem, ReadSmallFile(path, what));
  if (!absl::StrContains(pem, "-----BEGIN ") || !absl::StrContains(pem, label)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", path, "' is not PEM (no '-----BEGIN ...", label, "' block)"));
  }
  return pem;
}

absl::Status CheckToken(const std::string& token, const std::string& source) {
  if (token.size() < kMinTokenLength || token.size() > kMaxTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat("cluster token ", source, " has ", token.size(),
                                                   " characters; it needs ", kMinTokenLength, " to ",
                                                   kMaxTokenLength, " (e.g. `openssl rand -hex 32`)"));
  }
  for (char c : token) {
    // It travels as an HTTP/2 header value: printable ASCII, and no spaces to trim.
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster token ", source, " may only hold printable ASCII characters without spaces"));
    }
  }
  return absl::OkStatus();
}

constexpr char kMissingToken[] =
    "this tensorweave server requires the cluster token (metadata 'authorization: Bearer <token>'; "
    "give --cluster_token_file or TW_CLUSTER_TOKEN)";

// gRPC core's auth metadata processor: refuses every call whose `authorization` metadata
// is not "Bearer <token>" with Unauthenticated. It runs in the transport before any
// handler, for both services and every method, on TLS and plaintext ports alike (the C++
// AuthMetadataProcessor cannot be set on plaintext credentials).
void ProcessToken(void* state, grpc_auth_context*, const grpc_metadata* md, size_t num_md,
                  grpc_process_auth_metadata_done_cb done, void* user_data) {
  const std::string& expected = *static_cast<const std::string*>(state);
  // Exactly one: with two, a proxy or handler could read the other one than we checked.
  const grpc_metadata* token = nullptr;
  for (size_t i = 0; i < num_md; ++i) {
    if (grpc_slice_str_cmp(md[i].key, kAuthorizationKey) != 0) continue;
    if (token != nullptr) {
      done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_UNAUTHENTICATED,
           "more than one 'authorization' metadata entry: give the cluster token once");
      return;
    }
    token = &md[i];
  }
  if (token == nullptr) {
    done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_UNAUTHENTICATED, kMissingToken);
    return;
  }
  const std::string presented(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(token->value)),
                              GRPC_SLICE_LENGTH(token->value));
  if (!ConstantTimeEquals(presented, expected)) {
    done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_UNAUTHENTICATED, "wrong cluster token");
    return;
  }
  done(user_data, token, 1, nullptr, 0, GRPC_STATUS_OK, nullptr);  // Consumed: handlers never see it.
}

// gRPC core server credentials (TLS or plaintext, with the token processor) as C++ ones:
// the only way to give a plaintext port an auth metadata processor.
class CoreServerCredentials final : public grpc::ServerCredentials {
 public:
  explicit CoreServerCredentials(grpc_server_credentials* credentials) : credentials_(credentials) {}
  ~CoreServerCredentials() override { grpc_server_credentials_release(credentials_); }
  void SetAuthMetadataProcessor(const std::shared_ptr<grpc::AuthMetadataProcessor>&) override {
    std::abort();  // Never called: the token processor is set on the core credentials.
  }

 private:
  int AddPortToServer(const std::string& address, grpc_server* server) override {
    return grpc_server_add_http2_port(server, address.c_str(), credentials_);
  }
  grpc_server_credentials* const credentials_;
};

class TokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit TokenInterceptor(const std::string* header) : header_(header) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(kAuthorizationKey, *header_);
    }
    methods->Proceed();
  }

 private:
  const std::string* header_;  // Owned by the factory, which the channel keeps.
};

class TokenInterceptorFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit TokenInterceptorFactory(const std::string& token) : header_(absl::StrCat(kBearerPrefix, token)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo*) override {
    return new TokenInterceptor(&header_);
  }

 private:
  const std::string header_;
};

std::string EnvOr(const std::string& value, const char* variable) {
  if (!value.empty()) return value;
  const char* env = std::getenv(variable);
  return env == nullptr ? "" : env;
}

}  // namespace

TransportSecurity WithEnvironmentDefaults(TransportSecurity security) {
  security.tls_cert_file = EnvOr(security.tls_cert_file, "TW_TLS_CERT");
  security.tls_key_file = EnvOr(security.tls_key_file, "TW_TLS_KEY");
  security.tls_ca_file = EnvOr(security.tls_ca_file, "TW_TLS_CA");
  if (security.cluster_token_file.empty() && security.cluster_token.empty()) {
    security.cluster_token_file = EnvOr("", "TW_CLUSTER_TOKEN_FILE");
    if (security.cluster_token_file.empty()) security.cluster_token = EnvOr("", "TW_CLUSTER_TOKEN");
  }
  return security;
}

absl::StatusOr<SecurityMaterial> LoadSecurityMaterial(const TransportSecurity& security, SecurityRole role) {
  SecurityMaterial material;
  if (security.tls_cert_file.empty() != security.tls_key_file.empty()) {
    return absl::InvalidArgumentError("a TLS certificate needs its private key and the reverse: give both "
                                      "--tls_cert and --tls_key, or neither");
  }
  if (!security.tls_cert_file.empty()) {
    TW_ASSIGN_OR_RETURN(material.cert_pem, ReadPem(security.tls_cert_file, "TLS certificate", "CERTIFICATE-----"));
    TW_ASSIGN_OR_RETURN(material.key_pem, ReadPem(security.tls_key_file, "TLS private key", "PRIVATE KEY-----"));
  }
  if (!security.tls_ca_file.empty()) {
    TW_ASSIGN_OR_RETURN(material.ca_pem, ReadPem(security.tls_ca_file, "TLS CA certificate", "CERTIFICATE-----"));
  }
  if (role == SecurityRole::kServer && !material.ca_pem.empty() && material.cert_pem.empty()) {
    return absl::InvalidArgumentError(
        "--tls_ca (mutual TLS) needs the server's own --tls_cert and --tls_key to serve TLS with");
  }
  if (!security.cluster_token_file.empty()) {
    TW_ASSIGN_OR_RETURN(std::string token, ReadSmallFile(security.cluster_token_file, "cluster token file"));
    material.token = std::string(absl::StripAsciiWhitespace(token));
    TW_RETURN_IF_ERROR(CheckToken(material.token, absl::StrCat("in '", security.cluster_token_file, "'")));
  } else if (!security.cluster_token.empty()) {
    material.token = security.cluster_token;
    TW_RETURN_IF_ERROR(CheckToken(material.token, "(TW_CLUSTER_TOKEN or cluster_token)"));
  }
  return material;
}

ClientCredentials MakeClientCredentials(const SecurityMaterial& material) {
  ClientCredentials credentials;
  if (material.client_tls()) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = material.ca_pem;  // Empty: gRPC's default roots.
    options.pem_private_key = material.key_pem;
    options.pem_cert_chain = material.cert_pem;
    credentials.channel = grpc::SslCredentials(options);
  }
  credentials.token = material.token;
  return credentials;
}

std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface> MakeTokenInterceptorFactory(
    const std::string& token) {
  return std::make_unique<TokenInterceptorFactory>(token);
}

std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(const SecurityMaterial& material) {
  grpc_server_credentials* credentials = nullptr;
  if (material.server_tls()) {
    grpc_ssl_pem_key_cert_pair pair = {material.key_pem.c_str(), material.cert_pem.c_str()};
    credentials = grpc_ssl_server_credentials_create_ex(
        material.ca_pem.empty() ? nullptr : material.ca_pem.c_str(), &pair, 1,
        material.ca_pem.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY,
        nullptr);
  } else {
    credentials = grpc_insecure_server_credentials_create();
  }
  if (!material.token.empty()) {
    grpc_auth_metadata_processor processor;
    processor.process = ProcessToken;
    processor.destroy = [](void* state) { delete static_cast<std::string*>(state); };
    processor.state = new std::string(absl::StrCat(kBearerPrefix, material.token));
    grpc_server_credentials_set_auth_metadata_processor(credentials, processor);
  }
  return std::make_shared<CoreServerCredentials>(credentials);
}

absl::Status CheckListenAddress(const std::string& address, const SecurityMaterial& material,
                                bool insecure_allow_remote, std::string* warning) {
  warning->clear();
  if (IsLoopbackHost(HostOfAddress(address))) return absl::OkStatus();
  if (material.server_tls()) return absl::OkStatus();
  if (!material.token.empty()) {
    *warning = absl::StrCat("serving ", address, " with a cluster token but without TLS: the token crosses the ",
                            "network in clear text (add --tls_cert and --tls_key)");
    return absl::OkStatus();
  }
  if (insecure_allow_remote) {
    *warning = absl::StrCat("serving ", address, " (not a loopback address) without TLS or a cluster token ",
                            "(--insecure_allow_remote): anyone who can reach it can run code in this process");
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to serve ", address, " without TLS or a cluster token: it is not a loopback address, so anyone "
      "who can reach it could run code in this process. Give --tls_cert and --tls_key and/or "
      "--cluster_token_file (ServerOptions::security), or --insecure_allow_remote to serve it anyway"));
}

bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  // Every byte of `b` is compared whatever `a` holds; only the lengths decide early.
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < b.size(); ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    difference |= x ^ static_cast<unsigned char>(b[i]);
  }
  return difference == 0;
}

}  // namespace tw
