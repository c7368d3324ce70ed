// Certificates for the TLS tests, made at test time with Debian's `openssl` CLI in a
// fresh temporary directory (removed again): no private key is ever committed.
#ifndef TENSORWEAVE_TESTS_TESTING_TEST_CERTIFICATES_H_
#define TENSORWEAVE_TESTS_TESTING_TEST_CERTIFICATES_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace tw::testing {

class TestCertificates {
 public:
  // A CA and, signed by it, a server certificate for localhost / 127.0.0.1 and a client
  // certificate; a second, unrelated CA and a client certificate signed by that one; a
  // token file and a file with a different token. EC P-256 keys (fast to make).
  static absl::StatusOr<std::unique_ptr<TestCertificates>> Create();
  ~TestCertificates();

  std::string dir() const { return dir_; }
  // Paths: "<dir>/<name>" for name in ca.pem, server.pem, server.key, client.pem,
  // client.key, other_ca.pem, other_client.pem, other_client.key, token, wrong_token.
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_TEST_CERTIFICATES_H_
