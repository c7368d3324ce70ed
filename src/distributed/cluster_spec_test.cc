#include "tensorweave/cluster_spec.h"
#include "distributed/strict_json.h"

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
                StatusCode::kInvalidArgument, "TF_CONFIG task index 3 is not a task of job 'ps' (tasks: 0)");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": [1]}})").status(), StatusCode::kInvalidArgument,
                "non-string address");
  // Strict JSON, with the place of the first error.
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": ["h:1",]}})").status(),
                StatusCode::kInvalidArgument,
                "TF_CONFIG is not valid JSON: line 1, column 27: expected another value after ',' (a trailing "
                "comma is not JSON), found ']'");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson("{\n  'cluster': {}\n}").status(), StatusCode::kInvalidArgument,
                "line 2, column 3: expected a \"quoted\" key, found '''");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": ["h:1"]}} x)").status(),
                StatusCode::kInvalidArgument, "expected the end of the text, found 'x'");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": ["h:1"]}, "task": {"type": "worker"}})")
                    .status(),
                StatusCode::kInvalidArgument, "TF_CONFIG task type 'worker' is not a job of the cluster (jobs: ps)");
  EXPECT_STATUS(ClusterSpec::FromTfConfigJson(R"({"cluster": {"ps": ["h:1"]}, "task": "ps"})").status(),
                StatusCode::kInvalidArgument, "TF_CONFIG \"task\" must be an object");
}

TEST(StrictJsonTest, AcceptsJsonAndRefusesWhatIsNot) {
  for (const char* ok : {"{}", "[]", " 1 ", "-0.5e+3", R"("a\u00e9\n")", R"({"a": [true, false, null, {}]})"}) {
    EXPECT_TRUE(CheckStrictJson(ok).ok()) << ok << ": " << CheckStrictJson(ok);
  }
  for (const char* bad : {"", "{", "[1,]", R"({"a":1,})", "01", "1.", "+1", R"("\x")", "tru", "{a: 1}", "[1 2]",
                          R"("open)", "/* c */ 1"}) {
    EXPECT_EQ(CheckStrictJson(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(CheckStrictJson(std::string(64, '[') + std::string(64, ']')).ok());
  EXPECT_STATUS(CheckStrictJson(std::string(65, '[') + std::string(65, ']')), absl::StatusCode::kInvalidArgument,
                "line 1, column 65: expected at most 64 levels of nesting");
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
