#include "tensorweave/cluster_spec.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "testing/test_util.h"

namespace tw {
namespace {

TEST(ClusterSpecTest, FromJobsAndFlagSyntaxAgree) {
  auto a = ClusterSpec::FromJobs({{"local", {"localhost:2222", "localhost:2223"}}});
  auto b = ClusterSpec::Parse("local|localhost:2222;localhost:2223");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->num_tasks("local"), 2);
  EXPECT_EQ(*a->address("local", 1), "localhost:2223");
  EXPECT_EQ(a->ToString(), "local|localhost:2222;localhost:2223");
}

TEST(ClusterSpecTest, ParsesTheSeedsMultiJobFlag) {
  auto spec = ClusterSpec::Parse("master|localhost:2222,worker|localhost:2223,worker_|localhost:2224");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->jobs(), (std::vector<std::string>{"master", "worker", "worker_"}));
  EXPECT_EQ(*spec->address("worker_", 0), "localhost:2224");
}

TEST(ClusterSpecTest, SparseJobs) {
  auto spec = ClusterSpec::FromSparseJobs({{"worker", {{1, "h:1"}, {5, "h:5"}}}});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->task_indices("worker"), (std::vector<int>{1, 5}));
  EXPECT_STATUS(spec->address("worker", 0).status(), absl::StatusCode::kInvalidArgument,
                "job 'worker' has no task 0 (tasks: 1, 5)");
  EXPECT_STATUS(spec->address("ps", 0).status(), absl::StatusCode::kInvalidArgument,
                "the cluster has no job 'ps' (jobs: worker)");
}

TEST(ClusterSpecTest, RejectsBadSpecs) {
  using absl::StatusCode;
  EXPECT_STATUS(ClusterSpec::FromJobs({}).status(), StatusCode::kInvalidArgument, "no jobs");
  EXPECT_STATUS(ClusterSpec::FromJobs({{"ps", {}}}).status(), StatusCode::kInvalidArgument, "job 'ps' has no tasks");
  EXPECT_STATUS(ClusterSpec::FromJobs({{"ps", {"h:1"}}, {"w", {"h:1"}}}).status(), StatusCode::kInvalidArgument,
                "address 'h:1' is used by both ps:0 and w:0");
  EXPECT_STATUS(ClusterSpec::FromJobs({{"ps", {"h:0"}}}).status(), StatusCode::kInvalidArgument,
                "port must be a number from 1 to 65535");
  EXPECT_STATUS(ClusterSpec::FromJobs({{"ps", {"h:70000"}}}).status(), StatusCode::kInvalidArgument, "70000");
  EXPECT_STATUS(ClusterSpec::FromJobs({{"ps", {"nohost"}}}).status(), StatusCode::kInvalidArgument,
                "expected host:port");
  EXPECT_STATUS(ClusterSpec::FromJobs({{"9ps", {"h:1"}}}).status(), StatusCode::kInvalidArgument, "bad job name");
  EXPECT_STATUS(ClusterSpec::FromSparseJobs({{"ps", {{-1, "h:1"}}}}).status(), StatusCode::kInvalidArgument,
                "negative task index -1");
  EXPECT_STATUS(ClusterSpec::Parse("local:localhost:2222").status(), StatusCode::kInvalidArgument,
                "expected job|host:port");
  EXPECT_STATUS(ClusterSpec::Parse("a|h:1,a|h:2").status(), StatusCode::kInvalidArgument, "listed twice");
  EXPECT_TRUE(ClusterSpec::FromJobs({{"ps", {"[::1]:2222"}}}).ok());
}

TEST(ClusterSpecTest, TfConfigJson) {
  auto config = ClusterSpec::FromTfConfigJson(
      R"({"cluster": {"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]},
          "task": {"type": "worker", "index": 1}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->job, "worker");
  EXPECT_EQ(config->task, 1);
  EXPECT_EQ(config->cluster.num_tasks("worker"), 2);
  auto sparse = ClusterSpec::FromTfConfigJson(R"({"cluster": {"worker": {"3": "h:3"}}})");
  ASSERT_TRUE(sparse.ok()) << sparse.status();
  EXPECT_EQ(sparse->cluster.task_indices("worker"), (std::vector<int>{3}));
}

TEST(ClusterSpecTest, TfConfigErrors) {
  using absl::StatusCode;
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson("{not json").status(), StatusCode::kInvalidArgument, "not valid JSON");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"task": {}})").status(), StatusCode::kInvalidArgument,
                "no \"cluster\"");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": ["h:1"]}, "task": {"type": "ps", "index": 3}})")
                    .status(),
                StatusCode::kInvalidArgument, "job 'ps' has no task 3");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": [1]}})").status(), StatusCode::kInvalidArgument,
                "non-string address");
}

TEST(ClusterSpecTest, FromEnvironment) {
  unsetenv("TW_TEST_CONFIG");
  EXPECT_STATUS(ClusterSpec::FromEnvironment("TW_TEST_CONFIG").status(), absl::StatusCode::kNotFound, "not set");
  setenv("TW_TEST_CONFIG", R"({"cluster": {"chief": ["h:9"]}, "task": {"type": "chief", "index": 0}})", 1);
  auto config = ClusterSpec::FromEnvironment("TW_TEST_CONFIG");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->job, "chief");
  unsetenv("TW_TEST_CONFIG");
}

}  // namespace
}  // namespace tw
