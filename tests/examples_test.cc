// Runs the example programs as a user would and checks what they print.
#include <gtest/gtest.h>

#include <cstdio>

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

// The main demo: tw server processes, sync data-parallel training, the single-process
// run beside it. Equal halves averaged give the whole batch's gradient, so both held-out
// losses agree up to float32 rounding.
TEST(ExamplesTest, ClusterTrainingMatchesTheSingleProcessRun) {
  Result r = RunExample("cluster_training", "--steps 60 --print_every 30");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("started a local cluster of 3 tw server processes: ps|localhost:"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("worker 0  step   60  global step "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("worker 1  step   30  global step "), std::string::npos) << r.output;
  float cluster_loss = 0, single_loss = 0;
  const size_t c = r.output.find("cluster (1 ps + 2 workers)");
  const size_t s = r.output.find("single process ");
  ASSERT_NE(c, std::string::npos) << r.output;
  ASSERT_NE(s, std::string::npos) << r.output;
  ASSERT_EQ(std::sscanf(r.output.c_str() + c, "cluster (1 ps + 2 workers) %f", &cluster_loss), 1);
  ASSERT_EQ(std::sscanf(r.output.c_str() + s, "single process %f", &single_loss), 1);
  EXPECT_GT(single_loss, 0.0f);
  EXPECT_LT(single_loss, 2.3f);  // Below chance level (ln 10) after 60 steps.
  EXPECT_NEAR(cluster_loss, single_loss, 1e-3 * single_loss);
}

TEST(ExamplesTest, ClusterTrainingRefusesAnOddBatch) {
  Result r = RunExample("cluster_training", "--batch 7");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--batch a positive multiple of 2"), std::string::npos) << r.output;
}

}  // namespace
