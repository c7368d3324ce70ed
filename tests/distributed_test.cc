// The distributed runtime with real `tw server` processes on free loopback ports.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/net_util.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "testing/command_util.h"
#include "testing/local_cluster.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

std::unique_ptr<testing::LocalCluster> StartCluster(const std::map<std::string, int>& jobs,
                                                    const std::vector<std::string>& flags = {}) {
  auto cluster = testing::LocalCluster::Start(jobs, kTw, flags);
  EXPECT_TRUE(cluster.ok()) << cluster.status();
  return cluster.ok() ? *std::move(cluster) : nullptr;
}

TEST(DistributedTest, Seed238OnTwoTasks) {
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  auto x = constant(g, 2);
  Output y1, y2, y;
  {
    auto on = g.device("/job:local/task:1");
    y2 = x - 66;
  }
  {
    auto on = g.device("/job:local/task:0");
    y1 = x + 300;
    y = y1 + y2;
  }
  Session sess(g, cluster->target("local", 0));
  EXPECT_EQ(sess.run(y).scalar<int32_t>(), 238);
  EXPECT_EQ(sess.run(y).scalar<int32_t>(), 238) << "second step on the registered partitions";
}

TEST(DistributedTest, StringTensorsCrossTasksBothWays) {
  // Strings are objects: what crosses must be their bytes (TensorProto string_val), not
  // the std::string structs. Long values, so no small-string buffer hides a bad copy.
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  const std::string long_a(5000, 'a');
  Graph g;
  auto fed = placeholder(g, DType::kString, PartialShape({2}), "fed");
  Output from_1, joined_on_0, back_on_1, equal_on_1;
  {
    auto on = g.device("/job:local/task:1");
    from_1 = constant(g, std::vector<std::string>{long_a, std::string("\0\xff", 2)});
  }
  {
    auto on = g.device("/job:local/task:0");
    joined_on_0 = string_join({from_1, fed, constant(g, "!")}, "|");
  }
  {
    auto on = g.device("/job:local/task:1");
    back_on_1 = identity(joined_on_0);
    equal_on_1 = equal(joined_on_0, constant(g, std::vector<std::string>{long_a + "|x|!", "nope"}));
  }
  Session sess(g, cluster->target("local", 0));
  Tensor feed = testing::Str({2}, {"x", std::string(3000, 'y')});
  for (int step = 0; step < 2; ++step) {
    auto out = sess.run(std::vector<Output>{from_1, joined_on_0, back_on_1, equal_on_1}, {{fed, feed}});
    EXPECT_TENSOR_EQ(out[0], testing::Str({2}, {long_a, std::string("\0\xff", 2)}));
    const Tensor joined = testing::Str({2}, {long_a + "|x|!", std::string("\0\xff", 2) + "|" + std::string(3000, 'y') + "|!"});
    EXPECT_TENSOR_EQ(out[1], joined);
    EXPECT_TENSOR_EQ(out[2], joined);
    EXPECT_TENSOR_EQ(out[3], testing::Bool({2}, {true, false}));
  }
}

TEST(DistributedTest, MapReduceMeanWithUnequalSlicesRenamedJob) {
  auto cluster = StartCluster({{"mapper", 2}});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  auto x = placeholder(g, DType::kFloat, PartialShape({100}), "x");
  Output mean1, size1, mean;
  {
    auto on = g.device("/job:mapper/task:1");
    auto first = slice(x, {0}, {30});
    mean1 = reduce_mean(first);
    size1 = cast(size(first), DType::kFloat);
  }
  {
    auto on = g.device("/job:mapper/task:0");
    auto second = slice(x, {30}, {-1});
    auto size2 = cast(size(second), DType::kFloat);
    mean = (size1 * mean1 + size2 * reduce_mean(second)) / (size1 + size2);
  }
  Tensor values(DType::kFloat, TensorShape({100}));
  double expected = 0;
  for (int i = 0; i < 100; ++i) {
    values.flat<float>()[i] = static_cast<float>(i % 7);
    expected += i % 7;
  }
  Session sess(g, cluster->target("mapper", 0));
  EXPECT_NEAR(sess.run(mean, {{x, values}}).scalar<float>(), expected / 100, 1e-5);
}

TEST(DistributedTest, ChainAcrossThreeTasks) {
  auto cluster = StartCluster({{"w", 3}});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  Output x = constant(g, 0.0f);
  for (int i = 0; i < 12; ++i) {
    auto on = g.device("/job:w/task:" + std::to_string(i % 3));
    x = x + 1.0;
  }
  Session sess(g, cluster->target("w", 1));
  EXPECT_EQ(sess.run(x).scalar<float>(), 12.0f);
}

TEST(DistributedTest, VariablesOutliveSessionsAndAreShared) {
  auto cluster = StartCluster({{"ps", 1}, {"worker", 1}});
  ASSERT_NE(cluster, nullptr);
  auto build = [](Graph& g, Variable* w, Output* inc) {
    auto on = g.device("/job:ps/task:0");
    *w = Variable(g, constant(g, 10.0f), "w");
    *inc = w->assign_add(constant(g, 1.0f));
  };
  {
    Graph g;
    Variable w;
    Output inc;
    build(g, &w, &inc);
    Session a(g, cluster->target("worker", 0));
    a.run(global_variables_initializer(g));
    a.run(std::vector<Output>{inc});
  }
  Graph g;
  Variable w;
  Output inc;
  build(g, &w, &inc);
  Session b(g, cluster->target("ps", 0));  // Another session, through another master.
  EXPECT_EQ(b.run(w.value()).scalar<float>(), 11.0f);
}

TEST(DistributedTest, UnknownDeviceListsTheClustersDevices) {
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  Output y;
  {
    auto on = g.device("/job:local/task:5");
    y = constant(g, 1.0f) * 2.0;
  }
  Session sess(g, cluster->target("local", 0));
  try {
    sess.run(y);
    FAIL() << "ran on a task the cluster does not have";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument,
                  "/job:local/replica:0/task:0/device:CPU:0, /job:local/replica:0/task:1/device:CPU:0");
  }
}

TEST(DistributedTest, DeadTaskFailsTheStepAndSurvivorsKeepWorking) {
  auto cluster = StartCluster({{"local", 2}}, {"--rpc_timeout_ms=3000"});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  auto x = constant(g, 2.0f);
  Output far, near;
  {
    auto on = g.device("/job:local/task:1");
    far = x * 3.0;
  }
  {
    auto on = g.device("/job:local/task:0");
    near = x + 1.0;
  }
  auto both = far + near;
  Session sess(g, cluster->target("local", 0));
  EXPECT_EQ(sess.run(both).scalar<float>(), 9.0f);
  cluster->Kill("local", 1);
  auto start = absl::Now();
  try {
    sess.run(both);
    FAIL() << "a step with a dead task succeeded";
  } catch (const StatusError& e) {
    EXPECT_TRUE(absl::IsUnavailable(e.status()) || absl::IsDeadlineExceeded(e.status())) << e.status();
    EXPECT_NE(e.status().message().find("/job:local/replica:0/task:1"), std::string::npos) << e.status();
  }
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(sess.run(near).scalar<float>(), 3.0f) << "the survivor still runs steps";
}

TEST(DistributedTest, ServerReportsAPortInUse) {
  auto cluster = StartCluster({{"local", 1}});
  ASSERT_NE(cluster, nullptr);
  auto server = Server::Create(cluster->spec(), "local", 0);
  ASSERT_TRUE(server.ok());
  EXPECT_STATUS((*server)->Start(), absl::StatusCode::kUnavailable, "cannot listen on localhost:");
}

TEST(DistributedTest, InProcessLocalServer) {
  auto server = Server::CreateLocal();
  ASSERT_TRUE(server.ok()) << server.status();
  Graph g;
  auto y = constant(g, 20) + constant(g, 22);
  Session sess(g, (*server)->target());
  EXPECT_EQ(sess.run(y).scalar<int32_t>(), 42);
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

TEST(DistributedTest, ExamplesRunOnAClusterOfTwServers) {
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  auto r = testing::RunCommand(std::string(TW_BINARY_DIR) + "/examples/distributed_238 '--cluster_spec=" +
                               cluster->spec().ToString() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "238\n");
}

TEST(DistributedTest, TwRunOnAGrpcTarget) {
  auto cluster = StartCluster({{"local", 1}});
  ASSERT_NE(cluster, nullptr);
  auto r = testing::RunCommand(kTw + " run --target " + cluster->target("local", 0) + " --graph " +
                               std::string(TW_SOURCE_DIR) + "/examples/graphs/mean.pbtxt --feed 'x=[2,4]' --fetch mean");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "mean = float32 [] 3\n");
}

GetStatusResponse TaskStatus(const testing::LocalCluster& cluster, const std::string& job, int task) {
  auto stub = WorkerService::NewStub(MakeChannel(*cluster.spec().address(job, task)));
  grpc::ClientContext ctx;
  GetStatusResponse status;
  EXPECT_TRUE(stub->GetStatus(&ctx, GetStatusRequest(), &status).ok());
  return status;
}

TEST(DistributedTest, ClientKilledMidStepLeavesNoStepState) {
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  // A step of ~1000 chained 1000x1000 products on task 1 (many seconds), fetched on task 0.
  Graph g;
  Output y;
  {
    auto on = g.device("/job:local/task:1");
    Output x = random_uniform(g, TensorShape({1000, 1000}), -1e-3, 1e-3);
    y = x;
    for (int i = 0; i < 1000; ++i) y = matmul(y, x);
  }
  {
    auto on = g.device("/job:local/task:0");
    y = reduce_sum(y, {}, false, "total");
  }
  const std::string graph_file = ::testing::TempDir() + "/long_step.pb";
  {
    std::ofstream out(graph_file, std::ios::binary);
    ASSERT_TRUE(g.ToGraphDef().SerializeToOstream(&out));
  }
  // The client process dies 1 s into the step.
  auto r = testing::RunCommand("timeout -s KILL 1 " + kTw + " run --target " + cluster->target("local", 0) +
                               " --graph " + graph_file + " --fetch total");
  EXPECT_EQ(r.exit_code, 137) << r.output;
  // The master notices and aborts the step on both tasks long before it could finish.
  absl::Time deadline = absl::Now() + absl::Seconds(5);
  while ((TaskStatus(*cluster, "local", 0).active_steps() > 0 || TaskStatus(*cluster, "local", 1).active_steps() > 0) &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(TaskStatus(*cluster, "local", 0).active_steps(), 0);
  EXPECT_EQ(TaskStatus(*cluster, "local", 1).active_steps(), 0);
  // And the cluster still serves steps.
  Graph small;
  Output z;
  {
    auto on = small.device("/job:local/task:1");
    z = constant(small, 2.0f) * 3.0f;
  }
  Session sess(small, cluster->target("local", 0));
  EXPECT_EQ(sess.run(z).scalar<float>(), 6.0f);
}

TEST(DistributedTest, ClosingASessionDeregistersItsGraphs) {
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  Output x;
  {
    auto on = g.device("/job:local/task:1");
    x = constant(g, 1.0f) + 1.0f;
  }
  {
    Session sess(g, cluster->target("local", 0));
    EXPECT_EQ(sess.run(x).scalar<float>(), 2.0f);
    EXPECT_EQ(TaskStatus(*cluster, "local", 1).registered_graphs(), 1);
    EXPECT_EQ(sess.run(x * 2.0f).scalar<float>(), 4.0f);
    EXPECT_EQ(TaskStatus(*cluster, "local", 1).registered_graphs(), 2);
  }  // Closed here.
  EXPECT_EQ(TaskStatus(*cluster, "local", 1).registered_graphs(), 0);
  EXPECT_EQ(TaskStatus(*cluster, "local", 0).registered_graphs(), 0);
}

// Waits (up to 20 s) until `file` contains `text`; returns the file's contents.
std::string WaitForText(const std::string& file, const std::string& text) {
  std::string contents;
  for (absl::Time deadline = absl::Now() + absl::Seconds(20); absl::Now() < deadline;) {
    std::ifstream in(file);
    contents.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (contents.find(text) != std::string::npos) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return contents;
}

TEST(DistributedTest, TwClusterServesUntilStopped) {
  const std::string out = ::testing::TempDir() + "/tw_cluster.out";
  std::remove(out.c_str());
  auto started = testing::RunCommand(kTw + " cluster --jobs local:2 > " + out + " 2>&1 & echo $!");
  const std::string pid = std::string(absl::StripAsciiWhitespace(started.output));
  // A failure before the SIGTERM below must not leave the cluster running (its servers
  // stop with it: --parent_pid).
  bool stopped = false;
  absl::Cleanup kill_cluster = [&] {
    if (!stopped) testing::RunCommand("kill -KILL " + pid);
  };
  std::string log = WaitForText(out, "running");
  ASSERT_NE(log.find("tw cluster: local|localhost:"), std::string::npos) << log;
  // Each task's state as it comes up.
  EXPECT_NE(log.find("tw cluster: starting 2 tasks on free loopback ports\n"), std::string::npos) << log;
  for (const char* task : {"/job:local/task:0", "/job:local/task:1"}) {
    EXPECT_NE(log.find(absl::StrCat("tw cluster: ", task, " started (pid ")), std::string::npos) << log;
    EXPECT_NE(log.find(absl::StrCat("tw cluster: ", task, " serving (after ")), std::string::npos) << log;
  }
  const size_t at = log.find("/job:local/task:0  ") + 19;
  const std::string target = log.substr(at, log.find('\n', at) - at);
  {
    Graph g;
    Output x;
    {
      auto on = g.device("/job:local/task:1");
      x = constant(g, 20.0f);
    }
    Session sess(g, target);
    EXPECT_EQ(sess.run(x + 22.0f).scalar<float>(), 42.0f);
  }
  EXPECT_EQ(testing::RunCommand("kill -TERM " + pid).exit_code, 0);
  stopped = true;
  log = WaitForText(out, "tw cluster: stopped");
  EXPECT_NE(log.find("SIGTERM, stopping"), std::string::npos) << log;
  EXPECT_NE(log.find("tw cluster: stopped"), std::string::npos) << log;
  Graph g;
  auto y = constant(g, 1.0f);
  EXPECT_THROW(Session(g, target).run(y), StatusError);  // Nothing listens any more.

  EXPECT_EQ(testing::RunCommand(kTw + " cluster --jobs ps").exit_code, 2);
}

// A task that exits before it serves fails `tw cluster` at once, naming the task and its
// exit status (rather than a 20 s wait ending in "did not start").
TEST(DistributedTest, TwClusterNamesATaskThatExitsBeforeServing) {
  const testing::CommandResult r =
      testing::RunCommand(kTw + " cluster --jobs local:1 --file_access_root=/nonexistent/tw_cluster_root 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tw cluster: /job:local/task:0 started (pid "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tw server /job:local/task:0 at localhost:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" exited with status 2 before serving"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("file access root '/nonexistent/tw_cluster_root' is not an existing directory"),
            std::string::npos)
      << r.output;  // The task's own stderr, passed through.
  EXPECT_EQ(r.output.find("did not start within"), std::string::npos) << r.output;
}

// A task given --parent_pid stops by itself once that process ends: how a test or `tw
// cluster` that is killed (never destroying its ProcessCluster) leaves no server behind.
TEST(DistributedTest, ServerStopsWhenItsParentPidExits) {
  auto port = PickFreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  // `sleep` stands for the parent and is killed at once; a server that did not stop would
  // be killed by `timeout` after 120 s, and its exit status would say so.
  auto r = testing::RunCommand(absl::StrCat("sleep 600 & p=$!; timeout -s KILL 120 ", kTw,
                                            " server --cluster_spec=local\\|localhost:", *port,
                                            " --job_name=local --parent_pid=$p & s=$!; kill $p; wait $s; ",
                                            "echo \"server exit status $?\""));
  EXPECT_NE(r.output.find("tw server: SIGTERM, stopping"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("server exit status 0"), std::string::npos) << r.output;

  r = testing::RunCommand(kTw + " server --cluster_spec=local\\|localhost:1 --job_name=local --parent_pid=me");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--parent_pid must be a process id, not 'me'"), std::string::npos) << r.output;
}

TEST(DistributedTest, LargeTensorCrossesTasksIntact) {
  auto cluster = StartCluster({{"local", 2}});
  ASSERT_NE(cluster, nullptr);
  constexpr int64_t kElements = 64 * 1024 * 1024;  // 256 MiB of float32.
  Graph g;
  Output big, checksum;
  {
    auto on = g.device("/job:local/task:1");
    big = random_uniform(g, TensorShape({kElements}), 0, 1, DType::kFloat, /*seed=*/42);
  }
  {
    auto on = g.device("/job:local/task:0");
    checksum = reduce_sum(cast(big, DType::kDouble));
  }
  Output local_checksum;
  {
    auto on = g.device("/job:local/task:1");
    local_checksum = reduce_sum(cast(big, DType::kDouble));
  }
  Session sess(g, cluster->target("local", 0));
  auto values = sess.run(std::vector<Output>{checksum, local_checksum});
  EXPECT_GT(values[1].scalar<double>(), kElements * 0.45);
  EXPECT_DOUBLE_EQ(values[0].scalar<double>(), values[1].scalar<double>())
      << "the sum of the tensor after crossing tasks differs from the sum where it was made";
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

TEST(DistributedTest, WorkerKilledMidStepFailsTheStepInBoundedTime) {
  auto cluster = StartCluster({{"local", 2}}, {"--rpc_timeout_ms=5000"});
  ASSERT_NE(cluster, nullptr);
  Graph g;
  Output slow, quick;
  {
    // Seconds of work on task 1: a chain of 2048x2048 matrix products.
    auto on = g.device("/job:local/task:1");
    Output m = random_uniform(g, TensorShape({2048, 2048}), 0, 1e-3, DType::kFloat, 7);
    Output x = m;
    for (int i = 0; i < 40; ++i) x = matmul(x, m);
    slow = reduce_sum(x);
  }
  {
    auto on = g.device("/job:local/task:0");
    quick = constant(g, 1.0f) + 1.0;
  }
  Session sess(g, cluster->target("local", 0));
  absl::Status status;
  absl::Time start = absl::Now();
  std::thread step([&] {
    try {
      sess.run(slow + quick);
    } catch (const StatusError& e) {
      status = e.status();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  cluster->Kill("local", 1);
  step.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(15)) << "the failed step did not end in bounded time";
  EXPECT_TRUE(absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status)) << status.ToString();
  EXPECT_NE(status.message().find("task:1"), std::string::npos) << status;
  EXPECT_EQ(sess.run(quick).scalar<float>(), 2.0f) << "the surviving task runs the next step";
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

TEST(DistributedTest, VariablesSharedByTwoClientProcesses) {
  auto cluster = StartCluster({{"ps", 1}, {"worker", 2}});
  ASSERT_NE(cluster, nullptr);
  const std::string graph = std::string(TW_SOURCE_DIR) + "/examples/graphs/shared_counter.pbtxt";
  auto tw_run = [&](const std::string& target, const std::string& what) {
    return testing::RunCommand(kTw + " run --target " + target + " --graph " + graph + " " + what);
  };
  auto init = tw_run(cluster->target("worker", 0), "--target_op init");
  ASSERT_EQ(init.exit_code, 0) << init.output;
  // Two client processes, each through its own worker task, update the same variable.
  for (int i = 0; i < 3; ++i) {
    auto a = tw_run(cluster->target("worker", 0), "--target_op increment");
    auto b = tw_run(cluster->target("worker", 1), "--target_op increment");
    ASSERT_EQ(a.exit_code, 0) << a.output;
    ASSERT_EQ(b.exit_code, 0) << b.output;
  }
  auto read = tw_run(cluster->target("ps", 0), "--fetch value");
  EXPECT_EQ(read.exit_code, 0) << read.output;
  EXPECT_EQ(read.output, "value = float32 [] 6\n");
}

}  // namespace
}  // namespace tw
