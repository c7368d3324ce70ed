// Runs the real `tw` binary on GraphDef files, as a user would.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "testing/command_util.h"

namespace {

using Result = tw::testing::CommandResult;

Result RunTw(const std::string& args) { return tw::testing::RunCommand(std::string(TW_BINARY_DIR) + "/tools/tw " + args); }

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const std::string kMeanGraph = std::string(TW_SOURCE_DIR) + "/examples/graphs/mean.pbtxt";

TEST(TwRunTest, RunsATextGraphWithFeeds) {
  Result r = RunTw("run --graph " + kMeanGraph + " --feed 'x=[1,2,3,4]' --fetch mean");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "mean = float32 [] 2.5\n");
}

TEST(TwRunTest, MissingFeedIsAnErrorNamingThePlaceholder) {
  Result r = RunTw("run --graph " + kMeanGraph + " --fetch mean");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("node 'x' (Placeholder)"), std::string::npos) << r.output;
}

TEST(TwRunTest, BadFeedValueIsAClearError) {
  Result r = RunTw("run --graph " + kMeanGraph + " --feed 'x=[1,oops]' --fetch mean");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("'oops' is not a valid float32"), std::string::npos) << r.output;
}

TEST(TwRunTest, InvalidGraphIsRefusedNamingTheNode) {
  std::string path = WriteTemp("bad.pbtxt", "node { name: 'n' op: 'NoSuchOp' }\n");
  Result r = RunTw("run --graph " + path + " --fetch n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("node 'n' (NoSuchOp): unknown op 'NoSuchOp'"), std::string::npos) << r.output;
}

TEST(TwRunTest, MissingFileAndBadFlagsAreErrors) {
  Result missing = RunTw("run --graph /nonexistent.pbtxt --fetch x");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("cannot open GraphDef file"), std::string::npos) << missing.output;
  Result bad_flag = RunTw("run --graph " + kMeanGraph + " --bogus");
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_NE(bad_flag.output.find("unknown flag '--bogus'"), std::string::npos) << bad_flag.output;
}

TEST(TwRunTest, ServerRefusesBadThreadCounts) {
  for (const std::string flag : {"--intra_op_threads=0", "--inter_op_threads=many"}) {
    Result r = RunTw("server --cluster_spec='w|localhost:1' --job_name=w " + flag);
    EXPECT_NE(r.exit_code, 0) << flag;
    EXPECT_NE(r.output.find(flag.substr(0, flag.find('=')) + " must be an integer from 1 to 1024"), std::string::npos)
        << r.output;
  }
}

// Flags are absl::flags parsed per subcommand (tools/tw_flags.h): each subcommand has its
// own --help from the flags' help strings, typed errors name the flag and the value, and a
// flag of another subcommand is unknown.
TEST(TwRunTest, FlagsHaveHelpTypedErrorsAndBelongToOneSubcommand) {
  Result help = RunTw("server --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("usage: tw server [flags]"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--rpc_timeout_ms\n            deadline of calls between tasks, in ms (default: 30000)"),
            std::string::npos)
      << help.output;
  EXPECT_EQ(help.output.find("--graph"), std::string::npos) << help.output;
  Result run_help = RunTw("run --help");
  EXPECT_EQ(run_help.exit_code, 0);
  EXPECT_NE(run_help.output.find("--saved_model"), std::string::npos) << run_help.output;
  EXPECT_EQ(run_help.output.find("--job_name"), std::string::npos) << run_help.output;

  Result task = RunTw("server --cluster_spec='w|localhost:1' --job_name=w --task_index=x");
  EXPECT_EQ(task.exit_code, 2);
  EXPECT_NE(task.output.find("tw server: --task_index must be a non-negative integer, not 'x'"), std::string::npos)
      << task.output;
  Result parent = RunTw("server --cluster_spec='w|localhost:1' --job_name=w -parent_pid -3");
  EXPECT_EQ(parent.exit_code, 2);
  EXPECT_NE(parent.output.find("--parent_pid must be a process id, not '-3'"), std::string::npos) << parent.output;
  Result missing = RunTw("server --job_name");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("--job_name needs a value"), std::string::npos) << missing.output;
  Result other = RunTw("run --graph " + kMeanGraph + " --fetch mean --job_name=w");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.output.find("unknown flag '--job_name'"), std::string::npos) << other.output;
  Result cluster = RunTw("cluster --intra_op_threads=0");
  EXPECT_EQ(cluster.exit_code, 2);
  EXPECT_NE(cluster.output.find("--intra_op_threads must be an integer from 1 to 1024, not '0'"), std::string::npos)
      << cluster.output;
  Result ops = RunTw("ops --gradients=maybe");
  EXPECT_EQ(ops.exit_code, 2);
  EXPECT_NE(ops.output.find("tw ops: --gradients"), std::string::npos) << ops.output;
}

}  // namespace
