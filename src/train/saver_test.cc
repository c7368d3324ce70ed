// tw::Saver through tw::Session: round trips, fresh graphs, checkpoint bookkeeping, and
// damaged or mismatched checkpoints that must leave every variable as it was.
#include "tensorweave/saver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"
#include "checkpoint/checkpoint_writer.h"

namespace tw {
namespace {

using testing::Bool;
using testing::F32;
using testing::F64;
using testing::I32;
using testing::I64;
using testing::ReadBytes;
using testing::ScratchDir;
using testing::WriteBytes;

// The same small model, built into any graph; `w_value` lets a test give "w" another
// dtype or shape than the saved one.
struct Model {
  explicit Model(Graph& g, const Tensor& w_value = F32({2, 3}, {1, 2, 3, 4, 5, 6}))
      : w(g, constant(g, w_value), "w"),
        b(g, constant(g, F64({3}, {0.5, -0.25, 8})), "layer/b"),
        step(g, constant(g, int64_t{0}), "global_step", /*trainable=*/false),
        counts(g, constant(g, I32({2, 2}, {1, 2, 3, 4})), "counts"),
        mask(g, constant(g, Bool({2}, {true, false})), "mask") {
    std::vector<Variable> all = {w, b, step, counts, mask};
    for (const Variable& v : all) reads.push_back(v.value());
  }
  // Runs assignments giving every variable a value unlike its initial one.
  void Perturb(Graph& g, Session& sess) {
    sess.run(w.assign(constant(g, F32({2, 3}, {-1, -2, -3, -4, -5, -6}))).op());
    sess.run(b.assign(constant(g, F64({3}, {1e-300, 2, 3}))).op());
    sess.run(step.assign(constant(g, int64_t{1} << 40)).op());
    sess.run(counts.assign(constant(g, I32({2, 2}, {-9, 9, -9, 9}))).op());
    sess.run(mask.assign(constant(g, Bool({2}, {false, true}))).op());
  }
  std::vector<Tensor> Values(Session& sess) { return sess.run(reads); }

  Variable w, b, step, counts, mask;
  std::vector<Output> reads;
};

void ExpectSameValues(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_TENSOR_EQ(actual[i], expected[i]) << "variable " << i;
}

absl::Status SaveStatus(Saver& saver, Session& sess, const std::string& prefix, int64_t step = -1) {
  try {
    saver.save(sess, prefix, step);
    return absl::OkStatus();
  } catch (const StatusError& e) {
    return e.status();
  }
}

absl::Status RestoreStatus(Saver& saver, Session& sess, const std::string& path) {
  try {
    saver.restore(sess, path);
    return absl::OkStatus();
  } catch (const StatusError& e) {
    return e.status();
  }
}

TEST(SaverTest, RoundTripsVariablesOfEveryDtype) {
  ScratchDir dir;
  Graph g;
  Model m(g);
  Saver saver(g);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  const std::vector<Tensor> initial = m.Values(sess);
  EXPECT_EQ(saver.save(sess, dir / "model", 3), dir / "model-3");
  m.Perturb(g, sess);
  const std::vector<Tensor> perturbed = m.Values(sess);
  EXPECT_FALSE(perturbed[0].Equals(initial[0]));
  saver.restore(sess, dir / "model-3");
  ExpectSameValues(m.Values(sess), initial);
  EXPECT_EQ(saver.save(sess, dir / "plain"), dir / "plain");  // No step: the prefix itself.
}

TEST(SaverTest, RestoresIntoAFreshGraphAndSession) {
  ScratchDir dir;
  std::vector<Tensor> saved;
  {
    Graph g;
    Model m(g);
    Saver saver(g);
    Session sess(g);
    sess.run(global_variables_initializer(g));
    m.Perturb(g, sess);
    saved = m.Values(sess);
    saver.save(sess, dir / "model", 100);
  }
  Graph g;
  Model m(g);
  Saver saver(g);
  Session sess(g);
  const std::string latest = latest_checkpoint(dir.path());
  EXPECT_EQ(latest, dir / "model-100");
  saver.restore(sess, latest);  // Instead of the initializers.
  ExpectSameValues(m.Values(sess), saved);
}

TEST(SaverTest, NamedVariablesAreSavedUnderTheirGivenNames) {
  ScratchDir dir;
  {
    Graph g;
    Variable a(g, constant(g, F32({2}, {1, 2})), "a");
    Variable b(g, constant(g, F32({}, {3})), "b");
    Saver saver(g, std::vector<std::pair<std::string, Variable>>{{"layer/w", a}, {"layer/b", b}});
    Session sess(g);
    sess.run(global_variables_initializer(g));
    saver.save(sess, dir / "named");
  }
  // Another graph whose variables have other names reads them by the given names.
  Graph g;
  Variable w(g, constant(g, F32({2}, {0, 0})), "w_elsewhere");
  Variable b(g, constant(g, F32({}, {0})), "b_elsewhere");
  Saver saver(g, std::vector<std::pair<std::string, Variable>>{{"layer/b", b}, {"layer/w", w}});
  Session sess(g);
  saver.restore(sess, dir / "named");
  EXPECT_TENSOR_EQ(sess.run(w.value()), F32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(sess.run(b.value()), F32({}, {3}));
  // Names that the file does not hold, and names given twice, are errors.
  Saver wrong(g, std::vector<std::pair<std::string, Variable>>{{"w_elsewhere", w}});
  EXPECT_STATUS(ErrorOf([&] { wrong.restore(sess, dir / "named"); }), absl::StatusCode::kNotFound, "w_elsewhere");
  EXPECT_STATUS(ErrorOf([&] { Saver(g, std::vector<std::pair<std::string, Variable>>{{"x", w}, {"x", b}}); }),
                absl::StatusCode::kInvalidArgument, "the name 'x' is given twice");
}

TEST(SaverTest, KeepsTheNewestMaxToKeepAndRecordsThem) {
  ScratchDir dir;
  Graph g;
  Model m(g);
  Saver saver(g, 2);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  EXPECT_EQ(latest_checkpoint(dir.path()), "");  // No state file yet.
  for (int step = 1; step <= 4; ++step) saver.save(sess, dir / "model", step);
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"checkpoint", "model-3.data-00000-of-00001", "model-3.index",
                                                  "model-4.data-00000-of-00001", "model-4.index"}));
  EXPECT_EQ(saver.last_checkpoints(), (std::vector<std::string>{dir / "model-3", dir / "model-4"}));
  EXPECT_EQ(ReadBytes(dir / "checkpoint"),
            "model_checkpoint_path: \"model-4\"\n"
            "all_model_checkpoint_paths: \"model-3\"\n"
            "all_model_checkpoint_paths: \"model-4\"\n");
  EXPECT_EQ(latest_checkpoint(dir.path()), dir / "model-4");
  EXPECT_EQ(latest_checkpoint(dir.path() + "/"), dir / "model-4");
  // Saving a kept path again makes it the newest instead of keeping it twice.
  saver.save(sess, dir / "model", 3);
  EXPECT_EQ(saver.last_checkpoints(), (std::vector<std::string>{dir / "model-4", dir / "model-3"}));
  EXPECT_EQ(latest_checkpoint(dir.path()), dir / "model-3");
  // Entries whose files are gone are skipped.
  std::filesystem::remove(dir / "model-3.index");
  EXPECT_EQ(latest_checkpoint(dir.path()), dir / "model-4");
  std::filesystem::remove(dir / "model-4.index");
  EXPECT_EQ(latest_checkpoint(dir.path()), "");
  WriteBytes(dir / "checkpoint", "model_checkpoint_path: model-4\n");
  try {
    latest_checkpoint(dir.path());
    FAIL() << "a malformed state file was accepted";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kDataLoss,
                  "checkpoint state file '" + (dir / "checkpoint") + "' line 1 is malformed");
  }
}

// Checkpoints of tensorweave before the V2 format (one TWCKPT01 file) still restore.
TEST(SaverTest, RestoresAnEarlierTwckpt01File) {
  ScratchDir dir;
  Graph g;
  Model m(g);
  Saver saver(g);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  const std::vector<Tensor> saved = m.Values(sess);
  const std::vector<std::string> names = {"w", "layer/b", "global_step", "counts", "mask"};
  std::vector<checkpoint::NamedTensor> tensors;
  for (size_t i = 0; i < names.size(); ++i) tensors.push_back({names[i], saved[i]});
  const std::string old_file = dir / "old-1";
  ASSERT_TRUE(checkpoint::WriteCheckpoint(old_file, tensors).ok());
  m.Perturb(g, sess);
  saver.restore(sess, old_file);
  ExpectSameValues(m.Values(sess), saved);
}

TEST(SaverTest, MaxToKeepZeroKeepsEverything) {
  ScratchDir dir;
  Graph g;
  Model m(g);
  Saver saver(g, 0);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  for (int step = 0; step < 7; ++step) saver.save(sess, dir / "m", step);
  EXPECT_EQ(dir.List().size(), 1u + 7 * 2);  // the state file, an index and a data file each
  EXPECT_EQ(saver.last_checkpoints().size(), 7u);
}

// A Supervisor's checkpoint thread saves (building save ops into the graph) while the
// training thread runs steps and builds ops: no name is given twice, no step sees a
// half-added node, and every checkpoint holds the values.
TEST(SaverTest, SavesFromAnotherThreadWhileTheGraphGrowsAndRuns) {
  ScratchDir dir;
  Graph g;
  Model m(g);
  Saver saver(g, 0);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  const std::vector<Tensor> initial = m.Values(sess);
  constexpr int kSaves = 40;
  std::thread saving([&] {
    for (int step = 0; step < kSaves; ++step) saver.save(sess, dir / "m", step);
  });
  for (int i = 0; i < 200; ++i) {
    Output sum = constant(g, float(i)) + constant(g, 1.0f);
    EXPECT_TENSOR_EQ(sess.run(sum), F32({}, {float(i) + 1}));
    ExpectSameValues(m.Values(sess), initial);
  }
  saving.join();
  EXPECT_EQ(saver.last_checkpoints().size(), size_t{kSaves});
  Session fresh(g);
  saver.restore(fresh, dir / "m-17");
  ExpectSameValues(m.Values(fresh), initial);
}

// Every way a restore can fail leaves every variable with its previous value.
class SaverErrorTest : public ::testing::Test {
 protected:
  SaverErrorTest() : m_(g_), saver_(g_), sess_(g_) {
    sess_.run(global_variables_initializer(g_));
    path_ = saver_.save(sess_, dir_ / "model", 1);
    m_.Perturb(g_, sess_);
    before_ = m_.Values(sess_);
  }
  void ExpectRestoreFails(absl::StatusCode code, const std::string& message) {
    EXPECT_STATUS(RestoreStatus(saver_, sess_, path_), code, message);
    ExpectSameValues(m_.Values(sess_), before_);
  }

  ScratchDir dir_;
  Graph g_;
  Model m_;
  Saver saver_;
  Session sess_;
  std::string path_;
  std::vector<Tensor> before_;
};

TEST_F(SaverErrorTest, TruncatedDataFile) {
  const std::string data = path_ + ".data-00000-of-00001";
  const std::string bytes = ReadBytes(data);
  WriteBytes(data, bytes.substr(0, bytes.size() / 2));
  ExpectRestoreFails(absl::StatusCode::kDataLoss, "checkpoint data '" + data + "' is truncated: tensor '");
}

TEST_F(SaverErrorTest, FlippedDataByte) {
  const std::string data = path_ + ".data-00000-of-00001";
  std::string bytes = ReadBytes(data);
  bytes[bytes.size() - 3] ^= 0x40;  // in the last tensor written
  WriteBytes(data, bytes);
  ExpectRestoreFails(absl::StatusCode::kDataLoss, "checkpoint data '" + data + "' is corrupted: tensor '");
}

TEST_F(SaverErrorTest, FlippedIndexByte) {
  const std::string index = path_ + ".index";
  std::string bytes = ReadBytes(index);
  bytes[10] ^= 1;  // inside the first data block: its CRC no longer matches
  WriteBytes(index, bytes);
  ExpectRestoreFails(absl::StatusCode::kDataLoss, "checkpoint index '" + index + "' is corrupted");
}

TEST_F(SaverErrorTest, TruncatedIndex) {
  const std::string index = path_ + ".index";
  const std::string bytes = ReadBytes(index);
  WriteBytes(index, bytes.substr(0, bytes.size() - 10));
  ExpectRestoreFails(absl::StatusCode::kDataLoss, "checkpoint index '" + index + "' is corrupted");
}

TEST_F(SaverErrorTest, MissingDataFile) {
  std::filesystem::remove(path_ + ".data-00000-of-00001");
  ExpectRestoreFails(absl::StatusCode::kDataLoss, "data file '" + path_ + ".data-00000-of-00001' is missing");
}

TEST_F(SaverErrorTest, MissingFile) {
  path_ = dir_ / "model-2";
  ExpectRestoreFails(absl::StatusCode::kNotFound, "checkpoint '" + path_ + "' not found");
}

TEST_F(SaverErrorTest, MissingTensor) {
  Saver only_w(g_, {m_.w});
  path_ = only_w.save(sess_, dir_ / "only_w");
  sess_.run(m_.w.assign(constant(g_, F32({2, 3}, {0, 0, 0, 0, 0, 0}))).op());
  before_ = m_.Values(sess_);
  ExpectRestoreFails(absl::StatusCode::kNotFound,
                     "checkpoint '" + path_ + "' has no tensor 'layer/b'");
}

TEST_F(SaverErrorTest, ShapeMismatch) {
  Graph g2;
  Model m2(g2, F32({3, 2}, {1, 2, 3, 4, 5, 6}));
  Saver saver2(g2);
  Session sess2(g2);
  sess2.run(global_variables_initializer(g2));
  const auto values = m2.Values(sess2);
  EXPECT_STATUS(RestoreStatus(saver2, sess2, path_), absl::StatusCode::kInvalidArgument,
                "checkpoint '" + path_ + "': tensor 'w' has shape [2,3] but variable 'w' has shape [3,2]");
  ExpectSameValues(m2.Values(sess2), values);
}

TEST_F(SaverErrorTest, DtypeMismatch) {
  Graph g2;
  Model m2(g2, F64({2, 3}, {1, 2, 3, 4, 5, 6}));
  Saver saver2(g2);
  Session sess2(g2);
  sess2.run(global_variables_initializer(g2));
  const auto values = m2.Values(sess2);
  EXPECT_STATUS(RestoreStatus(saver2, sess2, path_), absl::StatusCode::kInvalidArgument,
                "checkpoint '" + path_ + "': tensor 'w' has dtype float32 but variable 'w' has dtype float64");
  ExpectSameValues(m2.Values(sess2), values);
}

TEST_F(SaverErrorTest, MissingDirectoryIsAClearErrorAndCreatesNothing) {
  const auto files = dir_.List();
  EXPECT_STATUS(SaveStatus(saver_, sess_, dir_ / "missing/model", 5), absl::StatusCode::kNotFound,
                "cannot write '" + (dir_ / "missing/model-5.data-00000-of-00001") + "': directory '" +
                    (dir_ / "missing") + "' does not exist");
  EXPECT_EQ(dir_.List(), files);
  EXPECT_EQ(saver_.last_checkpoints(), std::vector<std::string>{path_});
}

TEST_F(SaverErrorTest, SavingLeavesNoTemporaryFiles) {
  for (int step = 2; step <= 8; ++step) saver_.save(sess_, dir_ / "model", step);
  std::vector<std::string> expected = {"checkpoint"};
  for (int step = 4; step <= 8; ++step) {
    expected.push_back(absl::StrCat("model-", step, ".data-00000-of-00001"));
    expected.push_back(absl::StrCat("model-", step, ".index"));
  }
  EXPECT_EQ(dir_.List(), expected);
}

TEST(SaverTest, OpsIgnoreTheCallersScopesAndAreReusedPerPath) {
  ScratchDir dir;
  Graph g;
  Model m(g);
  Saver saver(g);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  {
    // Neither this device (absent) nor this name scope reaches the save op.
    auto on = g.device("/device:CPU:7");
    auto scope = g.name_scope("elsewhere");
    saver.save(sess, dir / "m", 1);
  }
  EXPECT_EQ(g.operation("save/SaveTensors").device(), "");
  EXPECT_EQ(g.operation("save/read").device(), "");
  const int ops = g.num_operations();
  saver.save(sess, dir / "m", 1);
  saver.restore(sess, dir / "m-1");
  saver.restore(sess, dir / "m-1");
  // One RestoreTensors, an assign per variable and their group; no new save op.
  EXPECT_EQ(g.num_operations(), ops + 1 + 5 + 1);
  saver.save(sess, dir / "m", 2);  // A new path: one more save op, the reads are shared.
  EXPECT_EQ(g.num_operations(), ops + 1 + 5 + 1 + 1);
}

TEST(SaverTest, NeedsVariablesFromItsGraph) {
  Graph g, other;
  try {
    Saver saver(g);
    FAIL() << "a Saver with nothing to save was built";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "Saver: no variables to save");
  }
  Model m(other);
  try {
    Saver saver(g, {m.w});
    FAIL() << "a Saver took another graph's variable";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument,
                  "Saver: variable 'w' is not from this graph");
  }
}

}  // namespace
}  // namespace tw
