// Transport security of a cluster: TLS from PEM files (mutual TLS optional) and a shared
// cluster token sent as `authorization: Bearer <token>` on every call and checked by every
// task. Servers take it in ServerOptions::security (`tw server --tls_cert ...`), clients
// in SessionConfig::security (`tw run --tls_ca ...`).
//
//   tw::ServerOptions options;
//   options.security.tls_cert_file = "task.pem";   // serve TLS with this certificate...
//   options.security.tls_key_file = "task.key";    // ...and key
//   options.security.tls_ca_file = "ca.pem";       // require client certificates it signed
//   options.security.cluster_token_file = "token"; // and the shared token on every call
//
//   tw::SessionConfig config;                      // a client of that cluster
//   config.security = {.tls_cert_file = "client.pem", .tls_key_file = "client.key",
//                      .tls_ca_file = "ca.pem", .cluster_token_file = "token"};
//
// A server without TLS or a token only serves a loopback address (127.0.0.0/8, ::1,
// localhost): asked to listen elsewhere it refuses (FailedPrecondition) unless
// ServerOptions::insecure_allow_remote is set.
#ifndef TENSORWEAVE_SECURITY_H_
#define TENSORWEAVE_SECURITY_H_

#include <string>

namespace tw {

struct TransportSecurity {
  // This side's certificate chain and private key (PEM), both or neither. A server with
  // them serves TLS only; a task's certificate is also its client certificate towards the
  // other tasks, and a client's is what it presents for mutual TLS.
  std::string tls_cert_file;
  std::string tls_key_file;
  // CA certificates (PEM). A server requires every client to present a certificate they
  // signed (mutual TLS); a client verifies the server's certificate against them (without
  // it: against the system's roots). A client uses TLS when it has a CA or a certificate.
  std::string tls_ca_file;
  // The shared cluster token: the file's content without surrounding whitespace, at least
  // 16 printable characters (`openssl rand -hex 32 > FILE`). Or the token itself in
  // cluster_token (used when no file is given).
  std::string cluster_token_file;
  std::string cluster_token;

  bool empty() const {
    return tls_cert_file.empty() && tls_key_file.empty() && tls_ca_file.empty() && cluster_token_file.empty() &&
           cluster_token.empty();
  }
};

// `security` with every empty field taken from the environment: TW_TLS_CERT, TW_TLS_KEY,
// TW_TLS_CA (file paths), TW_CLUSTER_TOKEN_FILE (a path) or TW_CLUSTER_TOKEN (the token
// itself). Clients (grpc:// sessions, `tw run`) apply it; servers do not.
TransportSecurity WithEnvironmentDefaults(TransportSecurity security);

}  // namespace tw

#endif  // TENSORWEAVE_SECURITY_H_
