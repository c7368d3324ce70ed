// `tw server` started from TF_CONFIG: a bad one is refused with what is wrong and where,
// through the real binary.
#include <gtest/gtest.h>

#include "distributed/rpc/process_cluster.h"
#include "testing/command_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

testing::CommandResult ServeFrom(const std::string& tf_config) {
  return testing::RunCommand("TF_CONFIG='" + tf_config + "' " + kTw + " server");
}

TEST(TwServerConfigTest, BadTfConfigSaysWhatIsWrong) {
  struct Case {
    std::string tf_config, message;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"cluster": {"worker": ["localhost:1",]}, "task": {"type": "worker", "index": 0}})",
            "tw server: TF_CONFIG is not valid JSON: line 1, column 39: expected another value after ','"},
           {R"({"cluster": {"worker": ["localhost:1"]}, "task": {"type": "chief", "index": 0}})",
            "task type 'chief' is not a job of the cluster (jobs: worker)"},
           {R"({"cluster": {"worker": ["localhost:1"]}, "task": {"type": "worker", "index": 2}})",
            "task index 2 is not a task of job 'worker' (tasks: 0)"},
           {R"({"task": {"type": "worker"}})", "TF_CONFIG has no \"cluster\" object"}}) {
    const testing::CommandResult r = ServeFrom(c.tf_config);
    EXPECT_NE(r.exit_code, 0) << c.tf_config;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.tf_config << "\n" << r.output;
  }
  const testing::CommandResult unset = testing::RunCommand("env -u TF_CONFIG " + kTw + " server");
  EXPECT_NE(unset.exit_code, 0);
  EXPECT_NE(unset.output.find("give --cluster_spec (or set TF_CONFIG)"), std::string::npos) << unset.output;
}

// A second server on a port in use says so in one line of ours, not gRPC's error blob.
TEST(TwServerConfigTest, BusyPortIsOneClearLine) {
  auto cluster = ProcessCluster::Start({{"local", 1}}, kTw);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string spec = (*cluster)->spec().ToString();
  const testing::CommandResult r =
      testing::RunCommand(kTw + " server --cluster_spec='" + spec + "' --job_name=local --task_index=0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("cannot listen on localhost:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": the port is in use by another process"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("UNKNOWN:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("created_time"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tw
