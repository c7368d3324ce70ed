// tw::Saver over variables on several devices: two local CPU devices, and the tasks of an
// in-process cluster (real gRPC) with the session on a task that holds none of them.
// One checkpoint file either way; a failed restore changes no variable on any device.
#include <gtest/gtest.h>

#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"
#include "checkpoint/tensor_bundle.h"
#include "testing/scratch_dir.h"

namespace tw {
namespace {

using testing::ScratchDir;

// Three variables spread over `devices` (round-robin), with a way to change them all.
struct SpreadModel {
  SpreadModel(Graph& g, const std::vector<std::string>& devices, DType w_dtype = DType::kFloat) {
    auto on = [&](int i) { return g.device(devices[i % devices.size()]); };
    {
      auto d = on(0);
      w = Variable(g, cast(constant(g, F32({2, 2}, {1, 2, 3, 4})), w_dtype), "w");
    }
    {
      auto d = on(1);
      b = Variable(g, constant(g, F64({3}, {0.5, -1, 2})), "b");
    }
    {
      auto d = on(2);
      step = Variable(g, constant(g, int64_t{7}), "global_step", /*trainable=*/false);
    }
    reads = {w.value(), b.value(), step.value()};
    perturb = group(g, {w.assign_add(cast(constant(g, F32({2, 2}, {10, 10, 10, 10})), w_dtype)).op(),
                        b.assign(constant(g, F64({3}, {9, 9, 9}))).op(),
                        step.assign(constant(g, int64_t{1000})).op()});
  }
  Variable w, b, step;
  std::vector<Output> reads;
  Operation perturb;
};

void ExpectSameValues(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_TENSOR_EQ(actual[i], expected[i]) << "variable " << i;
}

std::vector<Tensor> SavedValues() {
  return {F32({2, 2}, {1, 2, 3, 4}), F64({3}, {0.5, -1, 2}), I64({}, {7})};
}

TEST(SaverMultiDeviceTest, TwoLocalCpuDevices) {
  ScratchDir dir;
  SessionConfig config;
  config.cpu_device_count = 2;
  Graph g;
  SpreadModel m(g, {"/cpu:0", "/cpu:1"});
  Saver saver(g);
  Session sess(g, "", config);
  sess.run(global_variables_initializer(g));
  const std::string path = saver.save(sess, dir / "model", 1);
  // One file holding every variable, whichever device it lives on.
  auto reader = checkpoint::TensorBundleReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->entries().size(), 3u);
  EXPECT_TENSOR_EQ(*(*reader)->Read("b"), F64({3}, {0.5, -1, 2}));

  sess.run(m.perturb);
  EXPECT_TENSOR_EQ(sess.run(m.b.value()), F64({3}, {9, 9, 9}));
  saver.restore(sess, path);
  ExpectSameValues(sess.run(m.reads), SavedValues());
}

TEST(SaverMultiDeviceTest, AFailedRestoreChangesNoDevice) {
  ScratchDir dir;
  SessionConfig config;
  config.cpu_device_count = 2;
  std::string path;
  {
    Graph g;
    SpreadModel m(g, {"/cpu:0", "/cpu:1"});
    Saver saver(g);
    Session sess(g, "", config);
    sess.run(global_variables_initializer(g));
    path = saver.save(sess, dir / "model");
  }
  // "w" is float64 here: the restore fails on it, and "b" (on the other device) and
  // "global_step" keep their values too.
  Graph g;
  SpreadModel m(g, {"/cpu:1", "/cpu:0"}, DType::kDouble);
  Saver saver(g);
  Session sess(g, "", config);
  sess.run(global_variables_initializer(g));
  sess.run(m.perturb);
  const std::vector<Tensor> before = sess.run(m.reads);
  EXPECT_STATUS(ErrorOf([&] { saver.restore(sess, path); }), absl::StatusCode::kInvalidArgument,
                "checkpoint '" + path + "': tensor 'w' has dtype float32 but variable 'w' has dtype float64");
  ExpectSameValues(sess.run(m.reads), before);
}

TEST(SaverMultiDeviceTest, ThreeTaskClusterAndAFreshOne) {
  ScratchDir dir;
  std::string path;
  {
    InProcessCluster cluster = ValueOrThrow(StartInProcessCluster("local", 3));
    Graph g;
    SpreadModel m(g, {"/job:local/task:1", "/job:local/task:2"});
    EXPECT_EQ(m.step.handle().op().device(), "/job:local/task:1");
    Saver saver(g);
    Session sess(g, cluster.target(0));
    // Uninitialized variables on remote tasks fail the save (whichever is read first is
    // named) and leave no file.
    EXPECT_STATUS(ErrorOf([&] { saver.save(sess, dir / "model", 1); }),
                  absl::StatusCode::kFailedPrecondition, "is uninitialized");
    EXPECT_TRUE(dir.List().empty());

    sess.run(global_variables_initializer(g));
    path = saver.save(sess, dir / "model", 1);
    sess.run(m.perturb);
    EXPECT_TENSOR_EQ(sess.run(m.step.value()), I64({}, {1000}));
    saver.restore(sess, path);
    ExpectSameValues(sess.run(m.reads), SavedValues());
    sess.run(m.perturb);
  }
  // New servers hold no variables: restoring is their initialization.
  InProcessCluster cluster = ValueOrThrow(StartInProcessCluster("local", 3));
  Graph g;
  SpreadModel m(g, {"/job:local/task:2", "/job:local/task:1"});
  Saver saver(g);
  Session sess(g, cluster.target(0));
  EXPECT_EQ(latest_checkpoint(dir.path()), path);
  saver.restore(sess, latest_checkpoint(dir.path()));
  ExpectSameValues(sess.run(m.reads), SavedValues());
}

}  // namespace
}  // namespace tw
