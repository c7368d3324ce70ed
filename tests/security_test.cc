// Transport security with real `tw server` processes on loopback: TLS (mutual) and the
// cluster token, certificates made at test time (testing/test_certificates.h).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "core/proto_namespace.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "tensorweave/tensorweave.h"
#include "testing/command_util.h"
#include "testing/local_cluster.h"
#include "testing/test_certificates.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

class SecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto made = testing::TestCertificates::Create();
    ASSERT_TRUE(made.ok()) << made.status();
    certs_ = made->release();
  }
  static void TearDownTestSuite() {
    delete certs_;
    certs_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(certs_, nullptr); }

  static std::string Path(const std::string& name) { return certs_->path(name); }
  // What every task demands: TLS with client certificates from ca.pem, and the token.
  static TransportSecurity ServerSecurity() {
    return {.tls_cert_file = Path("server.pem"), .tls_key_file = Path("server.key"), .tls_ca_file = Path("ca.pem"),
            .cluster_token_file = Path("token")};
  }
  // A client that has everything the cluster demands.
  static TransportSecurity GoodClient() {
    return {.tls_cert_file = Path("client.pem"), .tls_key_file = Path("client.key"), .tls_ca_file = Path("ca.pem"),
            .cluster_token_file = Path("token")};
  }
  static std::unique_ptr<testing::LocalCluster> StartCluster(const TransportSecurity& security) {
    auto cluster = testing::LocalCluster::Start({{"ps", 1}, {"worker", 1}}, kTw, {}, security);
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    return cluster.ok() ? *std::move(cluster) : nullptr;
  }

  static testing::TestCertificates* certs_;
};
testing::TestCertificates* SecurityTest::certs_ = nullptr;

// One training-like step through the worker's master: a variable on the ps is
// incremented there and doubled on the worker (an edge from the ps to the worker, so the
// master's channel to the other task must be secured too). Returns 2 * (10 + steps).
struct TwoTaskStep {
  Graph g;
  Output doubled;
  Operation init;
  TwoTaskStep() {
    Output inc;
    {
      auto on = g.device("/job:ps/task:0");
      Variable w(g, constant(g, 10.0f), "w");
      inc = w.assign_add(constant(g, 1.0f));
    }
    {
      auto on = g.device("/job:worker/task:0");
      doubled = inc * 2.0f;
    }
    init = global_variables_initializer(g);
  }
  // The first step initializes the variable; the result of the step that follows.
  absl::StatusOr<float> Run(const std::string& target, const TransportSecurity& security) {
    SessionConfig config;
    config.security = security;
    Session session(g, target, config);
    TW_RETURN_IF_ERROR(session.Run({}, {}, {init.name()}, nullptr));
    std::vector<Tensor> out;
    TW_RETURN_IF_ERROR(session.Run({}, {doubled.name()}, {}, &out));
    return out[0].scalar<float>();
  }
};

TEST_F(SecurityTest, TwoTaskStepWithMutualTlsAndToken) {
  auto cluster = StartCluster(ServerSecurity());
  ASSERT_NE(cluster, nullptr);
  TwoTaskStep step;
  auto value = step.Run(cluster->target("worker", 0), GoodClient());
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 22.0f);
  // Through the ps's master as well (its channel to the worker).
  auto again = step.Run(cluster->target("ps", 0), GoodClient());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, 22.0f);
}

TEST_F(SecurityTest, MissingOrWrongTokenIsUnauthenticatedAndTheServerStaysHealthy) {
  auto cluster = StartCluster(ServerSecurity());
  ASSERT_NE(cluster, nullptr);
  const std::string target = cluster->target("worker", 0);
  TransportSecurity no_token = GoodClient();
  no_token.cluster_token_file.clear();
  TransportSecurity wrong_token = GoodClient();
  wrong_token.cluster_token_file = Path("wrong_token");
  TwoTaskStep step;
  EXPECT_STATUS(step.Run(target, no_token).status(), absl::StatusCode::kUnauthenticated,
                "this tensorweave server requires the cluster token");
  EXPECT_STATUS(step.Run(target, wrong_token).status(), absl::StatusCode::kUnauthenticated, "wrong cluster token");
  // A worker's own service is guarded too, not only the master's.
  EXPECT_STATUS(step.Run(cluster->target("ps", 0), wrong_token).status(), absl::StatusCode::kUnauthenticated,
                "wrong cluster token");
  auto value = step.Run(target, GoodClient());
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 22.0f);
}

TEST_F(SecurityTest, CertificateFromAnotherCaOrNoTlsIsRefusedInTheHandshake) {
  auto cluster = StartCluster(ServerSecurity());
  ASSERT_NE(cluster, nullptr);
  const std::string target = cluster->target("worker", 0);
  TransportSecurity other_ca = GoodClient();
  other_ca.tls_cert_file = Path("other_client.pem");
  other_ca.tls_key_file = Path("other_client.key");
  TransportSecurity no_client_cert = GoodClient();
  no_client_cert.tls_cert_file.clear();
  no_client_cert.tls_key_file.clear();
  TransportSecurity plaintext = {.cluster_token_file = Path("token")};
  TransportSecurity distrusts_server = GoodClient();
  distrusts_server.tls_ca_file = Path("other_ca.pem");
  TwoTaskStep step;
  // The server ends the TLS handshake (its log says why); gRPC reports Unavailable.
  EXPECT_STATUS(step.Run(target, other_ca).status(), absl::StatusCode::kUnavailable,
                "master at " + target.substr(7) + " over TLS: failed to connect to all addresses");
  EXPECT_STATUS(step.Run(target, no_client_cert).status(), absl::StatusCode::kUnavailable,
                "failed to connect to all addresses");
  EXPECT_STATUS(step.Run(target, plaintext).status(), absl::StatusCode::kUnavailable,
                "failed to connect to all addresses");
  // The client refuses a server certificate its CA did not sign.
  EXPECT_STATUS(step.Run(target, distrusts_server).status(), absl::StatusCode::kUnavailable,
                "certificate verify failed");
  auto value = step.Run(target, GoodClient());
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 22.0f);
}

TEST_F(SecurityTest, TokenWithoutTlsOnLoopbackAndTheEnvironmentDefault) {
  auto cluster = StartCluster({.cluster_token_file = Path("token")});
  ASSERT_NE(cluster, nullptr);
  const std::string target = cluster->target("worker", 0);
  TwoTaskStep step;
  EXPECT_STATUS(step.Run(target, {}).status(), absl::StatusCode::kUnauthenticated, "requires the cluster token");
  setenv("TW_CLUSTER_TOKEN_FILE", Path("token").c_str(), 1);
  auto value = step.Run(target, {});
  unsetenv("TW_CLUSTER_TOKEN_FILE");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 22.0f);
}

// Issue 14, item 14: with two `authorization` entries only the first one was checked.
TEST_F(SecurityTest, MoreThanOneAuthorizationEntryIsRefused) {
  auto cluster = StartCluster({.cluster_token_file = Path("token")});
  ASSERT_NE(cluster, nullptr);
  std::ifstream in(Path("token"));
  std::string token;
  std::getline(in, token);
  ASSERT_FALSE(token.empty());
  auto stub = WorkerService::NewStub(MakeChannel(*cluster->spec().address("worker", 0)));
  auto get_status = [&](const std::vector<std::string>& tokens) {
    grpc::ClientContext ctx;
    for (const std::string& t : tokens) ctx.AddMetadata("authorization", "Bearer " + t);
    GetStatusResponse resp;
    return stub->GetStatus(&ctx, GetStatusRequest(), &resp);
  };
  EXPECT_TRUE(get_status({token}).ok()) << get_status({token}).error_message();
  for (const auto& tokens : std::vector<std::vector<std::string>>{{token, token}, {token, "wrong"}, {"wrong", token}}) {
    grpc::Status s = get_status(tokens);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(s.error_message(), "more than one 'authorization' metadata entry: give the cluster token once");
  }
}

TEST_F(SecurityTest, TwRunPresentsTheFlags) {
  auto cluster = StartCluster(ServerSecurity());
  ASSERT_NE(cluster, nullptr);
  const std::string graph = std::string(TW_SOURCE_DIR) + "/examples/graphs/mean.pbtxt";
  const std::string run = kTw + " run --target " + cluster->target("worker", 0) + " --graph " + graph +
                          " --feed 'x=[1,2,3,4]' --fetch mean --tls_ca " + Path("ca.pem") + " --tls_cert " +
                          Path("client.pem") + " --tls_key " + Path("client.key");
  auto refused = testing::RunCommand(run);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.output.find("UNAUTHENTICATED: this tensorweave server requires the cluster token"),
            std::string::npos)
      << refused.output;
  auto ok = testing::RunCommand(run + " --cluster_token_file " + Path("token"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("mean = float32 [] 2.5"), std::string::npos) << ok.output;
}

// (`timeout`: a server that wrongly starts ends the test instead of hanging it.)
TEST_F(SecurityTest, TwServerRefusesAllInterfacesWithoutCredentialsAndNamesBadFiles) {
  const std::string server = "timeout 20 " + kTw + " server --job_name=local";
  auto refused = testing::RunCommand(server + " --cluster_spec='local|0.0.0.0:2222'");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.output.find("refusing to serve 0.0.0.0:2222 without TLS or a cluster token"), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("--insecure_allow_remote"), std::string::npos) << refused.output;
  auto missing = testing::RunCommand(server + " --cluster_spec='local|localhost:2222' --tls_cert=/nonexistent.pem" +
                                     " --tls_key=" + Path("server.key"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("cannot read TLS certificate '/nonexistent.pem'"), std::string::npos)
      << missing.output;
  std::ofstream(Path("short_token")) << "secret\n";
  auto short_token = testing::RunCommand(server + " --cluster_spec='local|localhost:2222' --cluster_token_file=" +
                                         Path("short_token"));
  EXPECT_EQ(short_token.exit_code, 2);
  EXPECT_NE(short_token.output.find("cluster token in '" + Path("short_token") + "' has 6 characters"),
            std::string::npos)
      << short_token.output;
}

}  // namespace
}  // namespace tw
