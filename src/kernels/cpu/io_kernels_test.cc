// SaveTensors / RestoreTensors run through a real session: values of several dtypes in,
// the same values out, and every check made before anything is given out.
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"
#include "checkpoint/checkpoint_reader.h"
#include "testing/scratch_dir.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/tensor_bundle.h"

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

AttrValue Names(std::vector<std::string> names) { return MakeAttr(absl::Span<const std::string>(names)); }

Operation Save(Graph& g, const std::vector<Output>& values, const std::string& path,
               std::vector<std::string> names) {
  return g.AddOperation("SaveTensors", "save", values, {{"path", MakeAttr(path)}, {"names", Names(names)}});
}

// RestoreTensors for `vars` (under their names) and one op assigning every output.
Operation RestoreInto(Graph& g, const std::vector<Variable>& vars, const std::string& path) {
  std::vector<std::string> names;
  std::vector<DType> dtypes;
  std::vector<PartialShape> shapes;
  for (const Variable& v : vars) {
    names.push_back(v.name());
    dtypes.push_back(v.dtype());
    shapes.push_back(v.shape());
  }
  Operation restore = g.AddOperation(
      "RestoreTensors", "restore", {},
      {{"path", MakeAttr(path)}, {"names", Names(names)},
       {"dtypes", MakeAttr(absl::Span<const DType>(dtypes))},
       {"shapes", MakeAttr(absl::Span<const PartialShape>(shapes))}});
  std::vector<Operation> assigns;
  for (size_t i = 0; i < vars.size(); ++i) assigns.push_back(vars[i].assign(restore.output(i)).op());
  return group(g, assigns, "restore_all");
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

TEST_F(IoKernelsTest, SaveWritesEveryTensorUnderItsName) {
  const std::string path = dir_ / "ckpt";
  // dtypes is inferred from the inputs: float32 then int64.
  Operation save = Save(g_, {a_.value(), b_.value()}, path, {"x", "y"});
  Session sess(g_);
  sess.run(global_variables_initializer(g_));
  sess.run(save);
  auto reader = checkpoint::TensorBundleReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_EQ((*reader)->entries().size(), 2u);
  EXPECT_TENSOR_EQ(*(*reader)->Read("x"), F32({2}, {1.5f, -2}));
  EXPECT_TENSOR_EQ(*(*reader)->Read("y"), I64({}, {7}));
  EXPECT_EQ(dir_.List(), (std::vector<std::string>{"ckpt.data-00000-of-00001", "ckpt.index"}));
}

TEST_F(IoKernelsTest, ASaveThatFailsWritesNothing) {
  Operation save = Save(g_, {a_.value(), b_.value()}, dir_ / "ckpt", {"a", "b"});
  Session sess(g_);
  sess.run(a_.initializer());
  EXPECT_STATUS(RunStatus(sess, save), absl::StatusCode::kFailedPrecondition,
                "variable 'b' is uninitialized");
  EXPECT_TRUE(dir_.List().empty());
}

TEST_F(IoKernelsTest, RestoreInitializesVariables) {
  const std::string path = dir_ / "ckpt";
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"b", I64({}, {-3})}, {"a", F32({2}, {9, 8})}}).ok());
  Operation restore = RestoreInto(g_, {a_, b_}, path);
  EXPECT_EQ(g_.operation("restore").output(0).shape(), PartialShape({2}));
  EXPECT_EQ(g_.operation("restore").output(1).dtype(), DType::kInt64);
  Session sess(g_);
  sess.run(restore);  // No initializer ran: restoring is initialization.
  EXPECT_TENSOR_EQ(sess.run(a_.value()), F32({2}, {9, 8}));
  EXPECT_TENSOR_EQ(sess.run(b_.value()), I64({}, {-3}));
}

TEST_F(IoKernelsTest, RestoreChecksEverythingBeforeAssigningAnything) {
  const std::string path = dir_ / "ckpt";
  Operation restore = RestoreInto(g_, {a_, b_}, path);
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

TEST_F(IoKernelsTest, AVariableOfUnknownShapeTakesTheSavedShape) {
  // As TF's Saver, the saved shape is checked against the variable's declared shape only.
  auto init = placeholder(g_, DType::kFloat, PartialShape::UnknownRank(), "init");
  Variable c(g_, init, "c");
  const std::string path = dir_ / "ckpt";
  Operation restore = RestoreInto(g_, {c}, path);
  Session sess(g_);
  ASSERT_TRUE(checkpoint::WriteCheckpoint(path, {{"c", F32({2, 2}, {1, 2, 3, 4})}}).ok());
  sess.run(c.initializer(), {{init, F32({3}, {1, 2, 3})}});
  sess.run(restore);
  EXPECT_TENSOR_EQ(sess.run(c.value()), F32({2, 2}, {1, 2, 3, 4}));
}

TEST_F(IoKernelsTest, AttrsAreCheckedWhenTheOpIsAdded) {
  auto add = [&](const std::string& path, std::vector<std::string> names) {
    return g_.TryAddOperation("SaveTensors", "s", {a_.value(), b_.value()},
                              {{"path", MakeAttr(path)}, {"names", Names(names)}})
        .status();
  };
  EXPECT_STATUS(add("p", {"a"}), absl::StatusCode::kInvalidArgument,
                "attr 'names' has 1 entries for 2 tensors");
  EXPECT_STATUS(add("p", {"a", "a"}), absl::StatusCode::kInvalidArgument,
                "attr 'names' lists 'a' twice");
  EXPECT_STATUS(add("p", {"a", ""}), absl::StatusCode::kInvalidArgument,
                "attr 'names' has an empty name");
  EXPECT_STATUS(add("", {"a", "b"}), absl::StatusCode::kInvalidArgument, "attr 'path' is empty");
  EXPECT_TRUE(add("p", {"a", "b"}).ok());
  auto restore = [&](std::vector<DType> dtypes, std::vector<PartialShape> shapes) {
    return g_.TryAddOperation("RestoreTensors", "r", {},
                              {{"path", MakeAttr("p")}, {"names", Names({"a", "b"})},
                               {"dtypes", MakeAttr(absl::Span<const DType>(dtypes))},
                               {"shapes", MakeAttr(absl::Span<const PartialShape>(shapes))}})
        .status();
  };
  EXPECT_STATUS(restore({DType::kFloat, DType::kInt64}, {PartialShape({2})}),
                absl::StatusCode::kInvalidArgument, "attr 'shapes' has 1 entries for 2 tensors");
  EXPECT_STATUS(restore({DType::kFloat}, {PartialShape({2})}), absl::StatusCode::kInvalidArgument,
                "attr 'names' has 2 entries for 1 tensors");
  EXPECT_TRUE(restore({DType::kFloat, DType::kInt64}, {PartialShape({2}), PartialShape({})}).ok());
  // The inputs must have the listed dtypes.
  auto mistyped = g_.TryAddOperation("SaveTensors", "s", {a_.value()},
                                     {{"path", MakeAttr("p")}, {"names", Names({"a"})},
                                      {"dtypes", MakeAttr(absl::Span<const DType>(
                                                     std::vector<DType>{DType::kInt64}))}});
  EXPECT_FALSE(mistyped.ok());
}

}  // namespace
}  // namespace tw
