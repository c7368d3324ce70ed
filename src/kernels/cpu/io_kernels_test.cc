// SaveVariables / RestoreVariables run through a real session on resource variables.
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"
#include "train/checkpoint_reader.h"
#include "train/checkpoint_test_util.h"
#include "train/checkpoint_writer.h"

namespace tw {
namespace {

using testing::F32;
using testing::F64;
using testing::I64;
using testing::ScratchDir;

absl::Status RunStatus(Session& sess, const Operation& op, const FeedDict& feeds = {}) {
  try {
    sess.run(op, feeds);
    return absl::OkStatus();
  } catch (const StatusError& e) {
    return e.status();
  }
}

Operation IoOp(Graph& g, const std::string& op, const std::vector<Variable>& vars,
               const std::string& path, std::vector<std::string> names) {
  std::vector<Output> handles;
  for (const Variable& v : vars) handles.push_back(v.handle());
  return g.AddOperation(op, op, handles,
                        {{"path", MakeAttr(path)},
                         {"names", MakeAttr(absl::Span<const std::string>(names))}});
}

class IoKernelsTest : public ::testing::Test {
 protected:
  IoKernelsTest()
      : a_(g_, constant(g_, F32({2}, {1.5f, -2})), "a"),
        b_(g_, constant(g_, int64_t{7}), "b") {}

  Graph g_;
  Variable a_, b_;
  ScratchDir dir_;
};

TEST_F(IoKernelsTest, SaveWritesEveryVariableUnderItsName) {
  const std::string path = dir_ / "ckpt";
  Operation save = IoOp(g_, "SaveVariables", {a_, b_}, path, {"x", "y"});
  Session sess(g_);
  sess.run(global_variables_initializer(g_));
  sess.run(save);
  auto reader = checkpoint::CheckpointReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_EQ((*reader)->entries().size(), 2u);
  EXPECT_TENSOR_EQ(*(*reader)->Read("x"), F32({2}, {1.5f, -2}));
  EXPECT_TENSOR_EQ(*(*reader)->Read("y"), I64({}, {7}));
  EXPECT_EQ(dir_.List(), std::vector<std::string>{"ckpt"});
}

TEST_F(IoKernelsTest, SavingAnUninitializedVariableFailsAndWritesNothing) {
  Operation save = IoOp(g_, "SaveVariables", {a_, b_}, dir_ / "ckpt", {"a", "b"});
  Session sess(g_);
  sess.run(a_.initializer());
  EXPECT_STATUS(RunStatus(sess, save), absl::StatusCode::kFailedPrecondition,
                "cannot save variable 'b' to '" + (dir_ / "ckpt") + "': it is uninitialized");
  EXPECT_TRUE(dir_.List().empty());
}

TEST_F(IoKernelsTest, RestoreInitializesVariables) {
  const std::string path = dir_ / "ckpt";
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"b", I64({}, {-3})}, {"a", F32({2}, {9, 8})}}).ok());
  Operation restore = IoOp(g_, "RestoreVariables", {a_, b_}, path, {"a", "b"});
  Session sess(g_);
  sess.run(restore);  // No initializer ran: restoring is initialization.
  EXPECT_TENSOR_EQ(sess.run(a_.value()), F32({2}, {9, 8}));
  EXPECT_TENSOR_EQ(sess.run(b_.value()), I64({}, {-3}));
}

TEST_F(IoKernelsTest, RestoreChecksEverythingBeforeAssigningAnything) {
  const std::string path = dir_ / "ckpt";
  Operation restore = IoOp(g_, "RestoreVariables", {a_, b_}, path, {"a", "b"});
  Session sess(g_);
  sess.run(global_variables_initializer(g_));
  auto expect_unchanged = [&] {
    EXPECT_TENSOR_EQ(sess.run(a_.value()), F32({2}, {1.5f, -2}));
    EXPECT_TENSOR_EQ(sess.run(b_.value()), I64({}, {7}));
  };
  EXPECT_STATUS(RunStatus(sess, restore), absl::StatusCode::kNotFound,
                "checkpoint '" + path + "' not found");
  // "a" is fine each time; "b" is not, and "a" must not be assigned either.
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"a", F32({2}, {0, 0})}}).ok());
  EXPECT_STATUS(RunStatus(sess, restore), absl::StatusCode::kNotFound,
                "checkpoint '" + path + "' has no tensor 'b'");
  expect_unchanged();
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"a", F32({2}, {0, 0})}, {"b", F64({}, {1})}}).ok());
  EXPECT_STATUS(RunStatus(sess, restore), absl::StatusCode::kInvalidArgument,
                "checkpoint '" + path +
                    "': tensor 'b' has dtype float64 but variable 'b' has dtype int64");
  expect_unchanged();
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"a", F32({3}, {0, 0, 0})}, {"b", I64({}, {1})}}).ok());
  EXPECT_STATUS(RunStatus(sess, restore), absl::StatusCode::kInvalidArgument,
                "tensor 'a' has shape [3] but variable 'a' has shape [2]");
  expect_unchanged();
  // A damaged entry after a good one: the good one is not assigned either.
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"a", F32({2}, {0, 0})}, {"b", I64({}, {1})}}).ok());
  std::string bytes = testing::ReadBytes(path);
  bytes[bytes.size() - 32 - 66 - 4 - 3] ^= 1;  // Inside b's data (the index has 66 bytes).
  testing::WriteBytes(path, bytes);
  EXPECT_STATUS(RunStatus(sess, restore), absl::StatusCode::kDataLoss,
                "checkpoint '" + path + "' is corrupted: entry 'b' checksum mismatch");
  expect_unchanged();
}

TEST_F(IoKernelsTest, RestoreMatchesTheCurrentShapeOfAnUndeclaredVariable) {
  auto init = placeholder(g_, DType::kFloat, PartialShape::UnknownRank(), "init");
  Variable c(g_, init, "c");
  const std::string path = dir_ / "ckpt";
  Operation restore = IoOp(g_, "RestoreVariables", {c}, path, {"c"});
  Session sess(g_);
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"c", F32({2, 2}, {1, 2, 3, 4})}}).ok());
  sess.run(restore);  // Uninitialized with an unknown shape: any shape fits.
  EXPECT_TENSOR_EQ(sess.run(c.value()), F32({2, 2}, {1, 2, 3, 4}));
  sess.run(c.initializer(), {{init, F32({3}, {1, 2, 3})}});
  EXPECT_STATUS(RunStatus(sess, restore), absl::StatusCode::kInvalidArgument,
                "tensor 'c' has shape [2,2] but variable 'c' holds a value of shape [3]");
  EXPECT_TENSOR_EQ(sess.run(c.value()), F32({3}, {1, 2, 3}));
}

TEST_F(IoKernelsTest, AttrsAreCheckedWhenTheOpIsAdded) {
  auto add = [&](const std::string& path, std::vector<std::string> names) {
    return g_.TryAddOperation("SaveVariables", "s", {a_.handle(), b_.handle()},
                              {{"path", MakeAttr(path)},
                               {"names", MakeAttr(absl::Span<const std::string>(names))}})
        .status();
  };
  EXPECT_STATUS(add("p", {"a"}), absl::StatusCode::kInvalidArgument,
                "attr 'names' has 1 entries for 2 variables");
  EXPECT_STATUS(add("p", {"a", "a"}), absl::StatusCode::kInvalidArgument,
                "attr 'names' lists 'a' twice");
  EXPECT_STATUS(add("p", {"a", ""}), absl::StatusCode::kInvalidArgument,
                "attr 'names' has an empty name");
  EXPECT_STATUS(add("", {"a", "b"}), absl::StatusCode::kInvalidArgument, "attr 'path' is empty");
  EXPECT_TRUE(add("p", {"a", "b"}).ok());
  auto not_handle = g_.TryAddOperation("RestoreVariables", "r", {constant(g_, 1.0f)},
                                       {{"path", MakeAttr("p")},
                                        {"names", MakeAttr(absl::Span<const std::string>(
                                                      std::vector<std::string>{"a"}))}});
  EXPECT_FALSE(not_handle.ok());
}

}  // namespace
}  // namespace tw
