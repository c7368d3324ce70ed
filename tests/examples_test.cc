// Runs the example programs as a user would and checks what they print.
#include <gtest/gtest.h>

#include <string>

#include "testing/command_util.h"

namespace {

using Result = tw::testing::CommandResult;

Result RunExample(const std::string& name, const std::string& args = "") {
  return tw::testing::RunCommand(std::string(TW_BINARY_DIR) + "/examples/" + name + " " + args);
}

TEST(ExamplesTest, Hello238) {
  Result r = RunExample("hello_238");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "238\n");
}

TEST(ExamplesTest, MeanOfRandomMatchesAPlainLoop) {
  Result r = RunExample("mean_of_random");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mean of 100 random values: "), std::string::npos) << r.output;
}

TEST(ExamplesTest, ExpMlpTrainsBelowTheLossTarget) {
  Result r = RunExample("exp_mlp", "--max_steps 20000");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("reached loss < 1e-3 after"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 200  loss "), std::string::npos) << r.output;
}

TEST(ExamplesTest, ClassifierReachesItsAccuracy) {
  Result r = RunExample("classifier");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("held-out accuracy: "), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST(ExamplesTest, Distributed238StartsItsOwnCluster) {
  Result r = RunExample("distributed_238");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("started a local cluster: local|localhost:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\n238\n"), std::string::npos) << r.output;
}

TEST(ExamplesTest, MapReduceMeanWithUnequalSlices) {
  Result r = RunExample("map_reduce_mean");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mean over /job:local tasks 0 and 1"), std::string::npos) << r.output;
}

TEST(ExamplesTest, MapReduceMeanWithTheJobRenamed) {
  Result r = RunExample("map_reduce_mean", "--job=mapreduce");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mean over /job:mapreduce tasks 0 and 1"), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST(ExamplesTest, DataParallelExpStartsItsOwnClusterOfTheSeedsJobs) {
  Result r = RunExample("data_parallel_exp", "--steps 200 --print_every 100");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("started a local cluster: master|localhost:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(",worker|localhost:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(",worker_|localhost:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 100  loss "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("final loss after 200 steps: data-parallel "), std::string::npos) << r.output;
}

TEST(ExamplesTest, DataParallelExpRefusesABadSplit) {
  Result r = RunExample("data_parallel_exp", "--split 100");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("need 0 < --split < 100"), std::string::npos) << r.output;
}

}  // namespace
