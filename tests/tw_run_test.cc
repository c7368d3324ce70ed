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

}  // namespace
