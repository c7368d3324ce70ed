#include "tensorweave/cluster_resolver.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/test_util.h"

namespace tw {
namespace {

using ::absl::StatusCode;
using Hosts = std::vector<std::string>;

// What `scontrol show hostnames` (Slurm 22.05) prints for these lists.
TEST(HostListTest, ExpandsAsScontrolDoes) {
  struct Case {
    std::string list;
    Hosts hosts;
  };
  for (const Case& c : std::vector<Case>{
           {"vm", {"vm"}},
           {"node[01-03,7],gpu-a[1-2]", {"node01", "node02", "node03", "node7", "gpu-a1", "gpu-a2"}},
           {"r[1-2]n[1-2]", {"r1n1", "r1n2", "r2n1", "r2n2"}},
           {"n[8-10],m[001-3]", {"n8", "n9", "n10", "m001", "m002", "m003"}},
           {"n[09-11]", {"n09", "n10", "n11"}},
           {"n[1-02]", {"n1", "n2"}},  // the width is the first number's
           {"n1,n1", {"n1", "n1"}},    // no deduplication
           {"a.b_c-d[5]", {"a.b_c-d5"}},
           {"[1-2]", {"1", "2"}},
           {"n[3-3]", {"n3"}},
           {"n[1-2]-ib", {"n1-ib", "n2-ib"}},  // a suffix (newer Slurm writes these)
       }) {
    auto hosts = ExpandHostList(c.list);
    ASSERT_TRUE(hosts.ok()) << c.list << ": " << hosts.status();
    EXPECT_EQ(*hosts, c.hosts) << c.list;
  }
  auto many = ExpandHostList("n[00000-65535]");
  ASSERT_TRUE(many.ok()) << many.status();
  EXPECT_EQ(many->size(), 65536u);
  EXPECT_EQ(many->back(), "n65535");
}

TEST(HostListTest, MalformedListsSayWhatAndWhere) {
  struct Case {
    std::string list, message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "host list '' is empty"},
           {"a,,b", "host list 'a,,b' has an empty host name (two commas, or one at an end) (character 3)"},
           {"a,", "has an empty host name"},
           {",a", "has an empty host name (two commas, or one at an end) (character 1)"},
           {"n[3-1]", "host list 'n[3-1]' has the descending range '3-1' (character 3)"},
           {"n[1-2", "host list 'n[1-2' has a '[' that is not closed (character 2)"},
           {"n[]", "has empty brackets '[]' (character 2)"},
           {"n[1-2]]", "has a ']' without its '[' (character 7)"},
           {"n]", "has a ']' without its '['"},
           {"n[a-b]", "has 'a-b' in brackets (expected N or N-M, N and M decimal numbers) (character 3)"},
           {"n[1,]", "has '' in brackets"},
           {"n[1--2]", "has '1--2' in brackets"},
           {"n[-2]", "has '-2' in brackets"},
           {"n[1-2[3]]", "has a '[' inside brackets (character 6)"},
           {"a b", "has ' ' in a host name (letters, digits, '-', '.', '_') (character 2)"},
           {"n/1", "has '/' in a host name"},
           {"n[0-99999999]", "expands to more than 65536 hosts"},
           {"a[0-300]b[0-300]", "expands to more than 65536 hosts"},
           {"n[1234567890]", "in brackets"},
       }) {
    EXPECT_STATUS(ExpandHostList(c.list).status(), StatusCode::kInvalidArgument, c.message) << c.list;
  }
}

TEST(HostListTest, TasksPerNode) {
  EXPECT_EQ(*ExpandTasksPerNode("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(*ExpandTasksPerNode("3"), (std::vector<int>{3}));
  EXPECT_EQ(*ExpandTasksPerNode("1,4(x2)"), (std::vector<int>{1, 4, 4}));
  for (const std::string bad : {"", "0", "x", "2(x0)", "2(x3", "(x3)", "2(3)", "2,,1", "-1", "2(x-1)", "1.5"}) {
    EXPECT_STATUS(ExpandTasksPerNode(bad).status(), StatusCode::kInvalidArgument, "tasks per node") << bad;
  }
  EXPECT_STATUS(ExpandTasksPerNode("2(x0)").status(), StatusCode::kInvalidArgument,
                "tasks per node '2(x0)': '2(x0)' is not N or N(xM) with N, M positive integers");
  EXPECT_STATUS(ExpandTasksPerNode("1(x70000)").status(), StatusCode::kInvalidArgument, "more than 65536 nodes");
}

TEST(JobCountsTest, ParsesInOrder) {
  auto jobs = ParseJobCounts("worker:2,ps:1");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(*jobs, (JobCounts{{"worker", 2}, {"ps", 1}}));
  for (const std::string bad : {"", "ps", "ps:0", "ps:x", ":1", "ps:1,ps:2", "1ps:1", "ps:1,", "p s:1"}) {
    EXPECT_STATUS(ParseJobCounts(bad).status(), StatusCode::kInvalidArgument, "") << bad;
  }
  EXPECT_STATUS(ParseJobCounts("ps:1,ps:2").status(), StatusCode::kInvalidArgument,
                "jobs 'ps:1,ps:2': 'ps:2' is not JOB:N with a new job name");
}

std::map<std::string, std::string> SlurmEnv(int procid, int localid) {
  return {{"SLURM_PROCID", std::to_string(procid)},
          {"SLURM_LOCALID", std::to_string(localid)},
          {"SLURM_JOB_NODELIST", "n[1-2]"},
          {"SLURM_TASKS_PER_NODE", "2(x2)"}};
}

TEST(SlurmClusterResolverTest, TasksFromProcIdNodesAndTasksPerNode) {
  const SlurmOptions options{.jobs = {{"ps", 1}, {"worker", 3}}, .port_base = 3000};
  auto r = SlurmClusterResolver::Create(options, MapEnvironment(SlurmEnv(2, 0)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cluster_spec().ToString(), "ps|n1:3000,worker|n1:3001;n2:3000;n2:3001");
  EXPECT_EQ(r->task_type(), "worker");
  EXPECT_EQ(r->task_id(), 1);
  EXPECT_EQ(*r->master(), "grpc://n2:3000");
  EXPECT_EQ(*r->master("ps", 0), "grpc://n1:3000");
  EXPECT_EQ(*r->master("worker", 2, ""), "n2:3001");
  EXPECT_EQ(r->num_accelerators(), 0);
  EXPECT_STATUS(r->master("chief", 0).status(), StatusCode::kInvalidArgument, "chief");
  auto ps = SlurmClusterResolver::Create(options, MapEnvironment(SlurmEnv(0, 0)));
  ASSERT_TRUE(ps.ok()) << ps.status();
  EXPECT_EQ(ps->task_type(), "ps");
  EXPECT_EQ(ps->task_id(), 0);
}

TEST(SlurmClusterResolverTest, StepVariablesComeFirst) {
  auto env = SlurmEnv(1, 0);
  env["SLURM_STEP_NODELIST"] = "n2,n7";
  env["SLURM_STEP_TASKS_PER_NODE"] = "1(x2)";
  auto r = SlurmClusterResolver::Create({.jobs = {{"worker", 2}}, .port_base = 8888}, MapEnvironment(env));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cluster_spec().ToString(), "worker|n2:8888;n7:8888");
  EXPECT_EQ(r->task_id(), 1);
}

TEST(SlurmClusterResolverTest, BadEnvironmentSaysWhatIsWrong) {
  const SlurmOptions options{.jobs = {{"ps", 1}, {"worker", 3}}};
  auto with = [](std::map<std::string, std::string> env, const std::string& key, const std::string& value) {
    if (value.empty()) {
      env.erase(key);
    } else {
      env[key] = value;
    }
    return MapEnvironment(env);
  };
  const auto base = SlurmEnv(1, 1);
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_PROCID", "")).status(),
                StatusCode::kFailedPrecondition, "slurm resolver: SLURM_PROCID is not set (start each task with srun)");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_JOB_NODELIST", "")).status(),
                StatusCode::kFailedPrecondition, "SLURM_STEP_NODELIST or SLURM_JOB_NODELIST are not set");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_TASKS_PER_NODE", "")).status(),
                StatusCode::kFailedPrecondition, "SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE are not set");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_PROCID", "x")).status(),
                StatusCode::kInvalidArgument, "SLURM_PROCID='x' is not a non-negative integer");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_JOB_NODELIST", "n[1-2")).status(),
                StatusCode::kInvalidArgument, "slurm resolver: SLURM_JOB_NODELIST: host list 'n[1-2' has a '['");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_TASKS_PER_NODE", "2(x")).status(),
                StatusCode::kInvalidArgument, "slurm resolver: SLURM_TASKS_PER_NODE: tasks per node '2(x'");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_TASKS_PER_NODE", "2")).status(),
                StatusCode::kInvalidArgument,
                "SLURM_JOB_NODELIST='n[1-2]' names 2 nodes but SLURM_TASKS_PER_NODE='2' gives tasks for 1");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_PROCID", "4")).status(),
                StatusCode::kInvalidArgument, "SLURM_PROCID=4 is not one of the 4 tasks");
  EXPECT_STATUS(SlurmClusterResolver::Create(options, with(base, "SLURM_LOCALID", "0")).status(),
                StatusCode::kInvalidArgument,
                "SLURM_LOCALID=0 but the block distribution puts SLURM_PROCID=1 at local index 1 of node n1 (start the "
                "tasks with srun --distribution=block)");
  EXPECT_STATUS(SlurmClusterResolver::Create({.jobs = {{"worker", 5}}}, MapEnvironment(base)).status(),
                StatusCode::kInvalidArgument, "slurm resolver: the jobs worker:5 need 5 tasks but 4 were started");
  EXPECT_STATUS(SlurmClusterResolver::Create({.jobs = {{"worker", 1}}}, MapEnvironment(base)).status(),
                StatusCode::kInvalidArgument,
                "slurm resolver: SLURM_PROCID=1 has no task: the jobs worker:1 have 1 tasks (ranks 0-0)");
  EXPECT_STATUS(SlurmClusterResolver::Create({}, MapEnvironment(base)).status(), StatusCode::kInvalidArgument,
                "no jobs given");
  EXPECT_STATUS(SlurmClusterResolver::Create({.jobs = {{"worker", 4}}, .port_base = 65535}, MapEnvironment(base)).status(),
                StatusCode::kInvalidArgument, "port 65535 + local index 1 is not a port (1..65535)");
}

std::map<std::string, std::string> MpiEnv(int rank, int size, int local_rank, int local_size) {
  return {{"OMPI_COMM_WORLD_RANK", std::to_string(rank)},
          {"OMPI_COMM_WORLD_SIZE", std::to_string(size)},
          {"OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(local_rank)},
          {"OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(local_size)}};
}

TEST(MpiClusterResolverTest, OneHostWithoutExchange) {
  auto r = MpiClusterResolver::Create({.jobs = {{"ps", 1}, {"worker", 2}}, .port_base = 4000, .host = "h"},
                                      MapEnvironment(MpiEnv(2, 3, 2, 3)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cluster_spec().ToString(), "ps|h:4000,worker|h:4001;h:4002");
  EXPECT_EQ(r->task_type(), "worker");
  EXPECT_EQ(r->task_id(), 1);
}

TEST(MpiClusterResolverTest, SeveralHostsNeedTheExchange) {
  EXPECT_STATUS(MpiClusterResolver::Create({.jobs = {{"worker", 4}}, .host = "a"}, MapEnvironment(MpiEnv(3, 4, 1, 2)))
                    .status(),
                StatusCode::kFailedPrecondition,
                "mpi resolver: the ranks run on several hosts (OMPI_COMM_WORLD_LOCAL_SIZE=2, OMPI_COMM_WORLD_SIZE=4) "
                "and this build has no MPI to exchange their addresses");
  // With an exchange (as MPI_Allgather gives): every rank's own host and local port.
  std::string given;
  MpiOptions options{.jobs = {{"worker", 4}}, .port_base = 5000, .host = "b"};
  options.exchange = [&](const std::string& mine) -> StatusOr<std::vector<std::string>> {
    given = mine;
    return std::vector<std::string>{"a:5000", "a:5001", "b:5000", mine};
  };
  auto r = MpiClusterResolver::Create(options, MapEnvironment(MpiEnv(3, 4, 1, 2)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(given, "b:5001");
  EXPECT_EQ(r->cluster_spec().ToString(), "worker|a:5000;a:5001;b:5000;b:5001");
  EXPECT_EQ(r->task_id(), 3);
  options.exchange = [](const std::string&) -> StatusOr<std::vector<std::string>> { return std::vector<std::string>{"a:1"}; };
  EXPECT_STATUS(MpiClusterResolver::Create(options, MapEnvironment(MpiEnv(3, 4, 1, 2))).status(), StatusCode::kFailedPrecondition,
                "the address exchange (MPI_Allgather) gave 1 addresses for OMPI_COMM_WORLD_SIZE=4 (was this process "
                "started by mpirun?)");
}

TEST(MpiClusterResolverTest, BadEnvironment) {
  const MpiOptions options{.jobs = {{"worker", 3}}, .host = "h"};
  auto env = MpiEnv(0, 3, 0, 3);
  env.erase("OMPI_COMM_WORLD_RANK");
  EXPECT_STATUS(MpiClusterResolver::Create(options, MapEnvironment(env)).status(), StatusCode::kFailedPrecondition,
                "mpi resolver: OMPI_COMM_WORLD_RANK is not set (start each task with Open MPI's mpirun)");
  EXPECT_STATUS(MpiClusterResolver::Create(options, MapEnvironment(MpiEnv(3, 3, 0, 3))).status(),
                StatusCode::kInvalidArgument, "OMPI_COMM_WORLD_RANK=3 is not below OMPI_COMM_WORLD_SIZE=3");
  EXPECT_STATUS(MpiClusterResolver::Create({.jobs = {{"worker", 4}}, .host = "h"}, MapEnvironment(MpiEnv(0, 3, 0, 3)))
                    .status(),
                StatusCode::kInvalidArgument, "the jobs worker:4 need 4 tasks but 3 were started");
}

TEST(KubernetesClusterResolverTest, TaskFromOrdinalPeersFromServiceDns) {
  KubernetesOptions options{.jobs = {{"ps", 1}, {"worker", 2}}, .port = 2222, .service = "tw", .namespace_ = "ml"};
  auto r = KubernetesClusterResolver::Create(options, MapEnvironment({{"HOSTNAME", "tw-worker-1"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cluster_spec().ToString(),
            "ps|tw-ps-0.tw.ml.svc.cluster.local:2222,worker|tw-worker-0.tw.ml.svc.cluster.local:2222;"
            "tw-worker-1.tw.ml.svc.cluster.local:2222");
  EXPECT_EQ(r->task_type(), "worker");
  EXPECT_EQ(r->task_id(), 1);
  // The namespace from the downward API's POD_NAMESPACE, else the service account's file.
  options.namespace_ = "";
  auto from_env =
      KubernetesClusterResolver::Create(options, MapEnvironment({{"HOSTNAME", "tw-ps-0"}, {"POD_NAMESPACE", "team"}}));
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(*from_env->master(), "grpc://tw-ps-0.tw.team.svc.cluster.local:2222");
  const std::string file = ::testing::TempDir() + "/namespace";
  std::ofstream(file) << "fromfile\n";
  options.namespace_file = file;
  auto from_file = KubernetesClusterResolver::Create(options, MapEnvironment({{"HOSTNAME", "tw-ps-0"}}));
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(*from_file->master("", -1, ""), "tw-ps-0.tw.fromfile.svc.cluster.local:2222");
  options.namespace_file = "";
  auto fallback = KubernetesClusterResolver::Create(options, MapEnvironment({{"HOSTNAME", "tw-ps-0.tw"}}));
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  EXPECT_EQ(*fallback->master("", -1, ""), "tw-ps-0.tw.default.svc.cluster.local:2222");
}

TEST(KubernetesClusterResolverTest, BadHostNames) {
  const KubernetesOptions options{.jobs = {{"ps", 1}, {"worker", 2}}, .namespace_ = "ml"};
  auto at = [&](const std::string& host) {
    return KubernetesClusterResolver::Create(options, MapEnvironment({{"HOSTNAME", host}})).status();
  };
  EXPECT_STATUS(at("laptop"), StatusCode::kInvalidArgument,
                "kubernetes resolver: host name 'laptop' is not a StatefulSet pod's <statefulset>-<ordinal>");
  EXPECT_STATUS(at("tw-worker-"), StatusCode::kInvalidArgument, "is not a StatefulSet pod's");
  EXPECT_STATUS(at("tw-worker-x"), StatusCode::kInvalidArgument, "is not a StatefulSet pod's");
  EXPECT_STATUS(at("tw-worker-2"), StatusCode::kInvalidArgument,
                "kubernetes resolver: pod tw-worker-2 has ordinal 2 but job 'worker' has 2 tasks");
  EXPECT_STATUS(at("web-0"), StatusCode::kInvalidArgument,
                "kubernetes resolver: pod web-0's StatefulSet 'web' is none of the jobs' (tw-ps, tw-worker)");
}

TEST(TFConfigClusterResolverTest, ReadsTfConfig) {
  auto r = TFConfigClusterResolver::Create(MapEnvironment(
      {{"TF_CONFIG", R"({"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": 1}})"}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cluster_spec().ToString(), "ps|h:1,worker|h:2;h:3");
  EXPECT_EQ(*r->master(), "grpc://h:3");
  EXPECT_STATUS(TFConfigClusterResolver::Create(MapEnvironment({})).status(), StatusCode::kFailedPrecondition,
                "tf_config resolver: TF_CONFIG is not set");
  EXPECT_STATUS(TFConfigClusterResolver::Create(MapEnvironment({{"TF_CONFIG", "{"}})).status(),
                StatusCode::kInvalidArgument, "TF_CONFIG is not valid JSON");
}

}  // namespace
}  // namespace tw
