#include "distributed/rpc/grpc_security.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "core/net_util.h"
#include "tensorweave/server.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";
constexpr char kFakeCert[] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
constexpr char kFakeKey[] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";

// A temporary directory of small files, removed at the end of the test.
class TempFiles {
 public:
  TempFiles() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tw_security_XXXXXX").string();
    dir_ = mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~TempFiles() { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name) << content;
    return dir_ + "/" + name;
  }

 private:
  std::string dir_;
};

TEST(GrpcSecurityTest, LoadsTokenWithoutSurroundingWhitespace) {
  TempFiles files;
  auto material = LoadSecurityMaterial({.cluster_token_file = files.Write("token", "  " + kToken + "\n")},
                                       SecurityRole::kServer);
  ASSERT_TRUE(material.ok()) << material.status();
  EXPECT_EQ(material->token, kToken);
  EXPECT_FALSE(material->server_tls());
  EXPECT_FALSE(material->client_tls());
}

TEST(GrpcSecurityTest, RefusesBadTokens) {
  TempFiles files;
  EXPECT_STATUS(LoadSecurityMaterial({.cluster_token_file = files.Write("short", "abc\n")}, SecurityRole::kServer)
                    .status(),
                absl::StatusCode::kInvalidArgument, "has 3 characters; it needs 16");
  EXPECT_STATUS(
      LoadSecurityMaterial({.cluster_token_file = files.Write("space", "0123456789 abcdef")}, SecurityRole::kClient)
          .status(),
      absl::StatusCode::kInvalidArgument, "printable ASCII characters without spaces");
  EXPECT_STATUS(LoadSecurityMaterial({.cluster_token_file = "/nonexistent/token"}, SecurityRole::kServer).status(),
                absl::StatusCode::kInvalidArgument, "cannot read cluster token file '/nonexistent/token'");
  EXPECT_STATUS(LoadSecurityMaterial({.cluster_token = "short"}, SecurityRole::kClient).status(),
                absl::StatusCode::kInvalidArgument, "has 5 characters");
}

TEST(GrpcSecurityTest, RefusesIncompleteOrNonPemTlsFiles) {
  TempFiles files;
  const std::string cert = files.Write("cert.pem", kFakeCert), key = files.Write("key.pem", kFakeKey);
  EXPECT_STATUS(LoadSecurityMaterial({.tls_cert_file = cert}, SecurityRole::kServer).status(),
                absl::StatusCode::kInvalidArgument, "give both --tls_cert and --tls_key");
  EXPECT_STATUS(LoadSecurityMaterial({.tls_cert_file = key, .tls_key_file = key}, SecurityRole::kServer).status(),
                absl::StatusCode::kInvalidArgument, "is not PEM (no '-----BEGIN ...CERTIFICATE-----' block)");
  EXPECT_STATUS(LoadSecurityMaterial({.tls_cert_file = cert, .tls_key_file = cert}, SecurityRole::kServer).status(),
                absl::StatusCode::kInvalidArgument, "TLS private key '" + cert + "' is not PEM");
  EXPECT_STATUS(LoadSecurityMaterial({.tls_ca_file = cert}, SecurityRole::kServer).status(),
                absl::StatusCode::kInvalidArgument, "--tls_ca (mutual TLS) needs the server's own --tls_cert");
  auto client = LoadSecurityMaterial({.tls_ca_file = cert}, SecurityRole::kClient);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE(client->client_tls());
  auto server = LoadSecurityMaterial({.tls_cert_file = cert, .tls_key_file = key}, SecurityRole::kServer);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_TRUE(server->server_tls());
  EXPECT_EQ(server->cert_pem, kFakeCert);
}

TEST(GrpcSecurityTest, EnvironmentFillsOnlyEmptyFields) {
  setenv("TW_TLS_CA", "/env/ca.pem", 1);
  setenv("TW_TLS_CERT", "/env/cert.pem", 1);
  setenv("TW_CLUSTER_TOKEN", kToken.c_str(), 1);
  TransportSecurity security = WithEnvironmentDefaults({.tls_cert_file = "mine.pem"});
  unsetenv("TW_TLS_CA");
  unsetenv("TW_TLS_CERT");
  unsetenv("TW_CLUSTER_TOKEN");
  EXPECT_EQ(security.tls_cert_file, "mine.pem");
  EXPECT_EQ(security.tls_ca_file, "/env/ca.pem");
  EXPECT_EQ(security.tls_key_file, "");
  EXPECT_EQ(security.cluster_token, kToken);
  EXPECT_TRUE(WithEnvironmentDefaults({}).empty());
}

TEST(GrpcSecurityTest, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("Bearer abc", "Bearer abc"));
  EXPECT_FALSE(ConstantTimeEquals("Bearer abd", "Bearer abc"));
  EXPECT_FALSE(ConstantTimeEquals("Bearer ab", "Bearer abc"));
  EXPECT_FALSE(ConstantTimeEquals("Bearer abcd", "Bearer abc"));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(GrpcSecurityTest, LoopbackHosts) {
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("10.1.2.3"));
  EXPECT_FALSE(IsLoopbackHost("no-such-host.invalid"));
  EXPECT_EQ(HostOfAddress("[::1]:2222"), "::1");
  EXPECT_EQ(HostOfAddress("localhost:2222"), "localhost");
}

TEST(GrpcSecurityTest, NonLoopbackAddressNeedsCredentialsOrTheOverride) {
  std::string warning;
  EXPECT_TRUE(CheckListenAddress("localhost:2222", {}, false, &warning).ok());
  EXPECT_EQ(warning, "");
  EXPECT_STATUS(CheckListenAddress("0.0.0.0:2222", {}, false, &warning), absl::StatusCode::kFailedPrecondition,
                "refusing to serve 0.0.0.0:2222 without TLS or a cluster token");
  EXPECT_TRUE(CheckListenAddress("0.0.0.0:2222", {}, true, &warning).ok());
  EXPECT_NE(warning.find("anyone who can reach it can run code"), std::string::npos) << warning;
  EXPECT_TRUE(CheckListenAddress("0.0.0.0:2222", {.token = kToken}, false, &warning).ok());
  EXPECT_NE(warning.find("the token crosses the network in clear text"), std::string::npos) << warning;
  EXPECT_TRUE(CheckListenAddress("0.0.0.0:2222", {.cert_pem = kFakeCert, .key_pem = kFakeKey}, false, &warning).ok());
  EXPECT_EQ(warning, "");
}

TEST(GrpcSecurityTest, ServerRefusesToStartOnAllInterfacesWithoutCredentials) {
  auto port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  auto cluster = ClusterSpec::Parse("local|0.0.0.0:" + std::to_string(*port));
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto server = Server::Create(*cluster, "local", 0);
  ASSERT_TRUE(server.ok());
  EXPECT_STATUS((*server)->Start(), absl::StatusCode::kFailedPrecondition, "--insecure_allow_remote");

  TempFiles files;
  ServerOptions with_token;
  with_token.security.cluster_token_file = files.Write("token", kToken);
  auto tokened = Server::Create(*cluster, "local", 0, with_token);
  ASSERT_TRUE(tokened.ok());
  EXPECT_TRUE((*tokened)->Start().ok());
  (*tokened)->Stop();

  ServerOptions allowed;
  allowed.insecure_allow_remote = true;
  auto open = Server::Create(*cluster, "local", 0, allowed);
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE((*open)->Start().ok());
  (*open)->Stop();
}

TEST(GrpcSecurityTest, ServerStartNamesAnUnreadableCertificate) {
  ServerOptions options;
  options.security.tls_cert_file = "/nonexistent/server.pem";
  options.security.tls_key_file = "/nonexistent/server.key";
  auto port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok());
  auto cluster = ClusterSpec::Parse("local|localhost:" + std::to_string(*port));
  auto server = Server::Create(*cluster, "local", 0, options);
  ASSERT_TRUE(server.ok());
  EXPECT_STATUS((*server)->Start(), absl::StatusCode::kInvalidArgument,
                "cannot read TLS certificate '/nonexistent/server.pem'");
}

}  // namespace
}  // namespace tw
