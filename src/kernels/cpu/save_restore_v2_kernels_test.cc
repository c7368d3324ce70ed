// SaveV2 / RestoreV2 / MergeV2Checkpoints through a real session, with TensorFlow's
// signatures (prefix and names as string tensors): values round-trip, a sharded save's
// parts merge into one checkpoint of several data shards, and bad inputs are refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/attr_value.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"
#include "checkpoint/tensor_bundle.h"

namespace tw {
namespace {

using testing::F32;
using testing::I64;
using testing::ScratchDir;
using testing::Str;

// The status of running `op` (OK when it succeeds).
absl::Status RunStatus(Session& sess, const Operation& op) {
  return testing::ErrorOf([&] { sess.run(op); });
}

Operation SaveV2(Graph& g, const std::string& prefix, std::vector<std::string> names, std::vector<Output> values,
                 const std::string& name, std::vector<std::string> slices = {}) {
  const int64_t n = static_cast<int64_t>(names.size());
  if (slices.empty()) slices.resize(names.size());
  std::vector<Output> inputs{constant(g, Str({}, {prefix})), constant(g, Str({n}, names)), constant(g, Str({n}, slices))};
  inputs.insert(inputs.end(), values.begin(), values.end());
  return g.AddOperation("SaveV2", name, inputs, {});
}

Operation RestoreV2(Graph& g, const std::string& prefix, std::vector<std::string> names, std::vector<DType> dtypes,
                    const std::string& name, std::vector<std::string> slices = {}) {
  const int64_t n = static_cast<int64_t>(names.size());
  if (slices.empty()) slices.resize(names.size());
  return g.AddOperation("RestoreV2", name,
                        {constant(g, Str({}, {prefix})), constant(g, Str({n}, names)), constant(g, Str({n}, slices))},
                        {{"dtypes", MakeAttr(absl::Span<const DType>(dtypes))}});
}

TEST(SaveRestoreV2KernelsTest, SaveThenRestoreEveryDtype) {
  ScratchDir dir;
  const std::string prefix = dir / "sub/dir/model.ckpt";  // SaveV2 makes the directories
  Graph g;
  Operation save = SaveV2(g, prefix, {"w", "step", "vocab"},
                          {constant(g, F32({2}, {1.5f, -2})), constant(g, int64_t{42}),
                           constant(g, Str({2}, {"a", std::string("b\0c", 3)}))},
                          "save");
  Operation restore = RestoreV2(g, prefix, {"vocab", "w"}, {DType::kString, DType::kFloat}, "restore");
  Session sess(g);
  sess.run(save);
  std::vector<Tensor> got = sess.run({restore.output(0), restore.output(1)});
  EXPECT_TENSOR_EQ(got[0], Str({2}, {"a", std::string("b\0c", 3)}));
  EXPECT_TENSOR_EQ(got[1], F32({2}, {1.5f, -2}));
  auto reader = checkpoint::TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_TENSOR_EQ(*(*reader)->Read("step"), I64({}, {42}));
}

TEST(SaveRestoreV2KernelsTest, RestoreRefusesMissingTensorsWrongDtypesAndBadSlices) {
  ScratchDir dir;
  const std::string prefix = dir / "ckpt";
  Graph g;
  Operation save = SaveV2(g, prefix, {"w"}, {constant(g, F32({1}, {3}))}, "save");
  Operation missing = RestoreV2(g, prefix, {"nope"}, {DType::kFloat}, "missing");
  Operation dtype = RestoreV2(g, prefix, {"w"}, {DType::kInt64}, "dtype");
  Operation slice = RestoreV2(g, prefix, {"w"}, {DType::kFloat}, "slice", {"2 0,1"});
  Operation bad_spec = RestoreV2(g, prefix, {"w"}, {DType::kFloat}, "bad_spec", {"1 x"});
  Operation absent = RestoreV2(g, dir / "absent", {"w"}, {DType::kFloat}, "absent");
  Session sess(g);
  sess.run(save);
  EXPECT_STATUS(RunStatus(sess, missing), absl::StatusCode::kNotFound, "has no tensor 'nope'");
  EXPECT_STATUS(RunStatus(sess, dtype), absl::StatusCode::kInvalidArgument,
                "tensor 'w' has dtype float32 but RestoreV2 expects int64");
  EXPECT_STATUS(RunStatus(sess, slice), absl::StatusCode::kInvalidArgument,
                "tensor 'w' has shape [1] but the slice '2 0,1' is of a variable of shape [2]");
  EXPECT_STATUS(RunStatus(sess, bad_spec), absl::StatusCode::kInvalidArgument,
                "tensor 'w': shape_and_slice '1 x': extent 'x' is not a block of dimension 0 (size 1)");
  EXPECT_STATUS(RunStatus(sess, absent), absl::StatusCode::kNotFound, "absent");
  // tensor_names of the wrong length is refused when the graph is built.
  EXPECT_FALSE(g.TryAddOperation("SaveV2", "bad",
                                 {constant(g, Str({}, {prefix})), constant(g, Str({2}, {"a", "b"})),
                                  constant(g, Str({2}, {"", ""})), constant(g, F32({1}, {1}))},
                                 {})
                   .ok());
}

// A partitioned variable's shards go in as slices of it (TF's Saver); RestoreV2 gives it
// whole or any block of it.
TEST(SaveRestoreV2KernelsTest, SlicesSavedAreRestoredWholeOrAsOtherBlocks) {
  ScratchDir dir;
  const std::string prefix = dir / "ckpt";
  Graph g;
  Operation save = SaveV2(g, prefix, {"emb", "emb"}, {constant(g, F32({1, 2}, {5, 6})), constant(g, F32({2, 2}, {1, 2, 3, 4}))},
                          "save", {"3 2 2,1:0,2", "3 2 0,2:0,2"});
  Operation whole = RestoreV2(g, prefix, {"emb"}, {DType::kFloat}, "whole");
  Operation block = RestoreV2(g, prefix, {"emb", "emb"}, {DType::kFloat, DType::kFloat}, "block", {"3 2 1,2:-", "3 2 -:1,1"});
  Operation gaps = SaveV2(g, dir / "gaps", {"emb"}, {constant(g, F32({1, 2}, {5, 6}))}, "gaps", {"3 2 2,1:0,2"});
  Session sess(g);
  sess.run(save);
  EXPECT_TENSOR_EQ(sess.run(whole.output(0)), F32({3, 2}, {1, 2, 3, 4, 5, 6}));
  std::vector<Tensor> got = sess.run({block.output(0), block.output(1)});
  EXPECT_TENSOR_EQ(got[0], F32({2, 2}, {3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(got[1], F32({3, 1}, {2, 4, 6}));
  EXPECT_STATUS(RunStatus(sess, gaps), absl::StatusCode::kInvalidArgument, "the slices of 'emb' hold 2 of its 6 values");
}

TEST(SaveRestoreV2KernelsTest, MergeMakesOneCheckpointOfSeveralShards) {
  ScratchDir dir;
  const std::string part0 = dir / "model_temp/part-00000-of-00002", part1 = dir / "model_temp/part-00001-of-00002";
  const std::string dest = dir / "model";
  Graph g;
  Operation s0 = SaveV2(g, part0, {"a", "c"}, {constant(g, F32({2}, {1, 2})), constant(g, int64_t{-5})}, "s0");
  Operation s1 = SaveV2(g, part1, {"b"}, {constant(g, Str({}, {"text"}))}, "s1");
  Operation merge = g.AddOperation("MergeV2Checkpoints", "merge",
                                   {constant(g, Str({2}, {part0, part1})), constant(g, Str({}, {dest}))}, {});
  Operation restore = RestoreV2(g, dest, {"a", "b", "c"}, {DType::kFloat, DType::kString, DType::kInt64}, "restore");
  Session sess(g);
  sess.run(s0);
  sess.run(s1);
  sess.run(merge);
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"model.data-00000-of-00002", "model.data-00001-of-00002",
                                                   "model.index"}));  // the parts' directory is gone
  std::vector<Tensor> got = sess.run({restore.output(0), restore.output(1), restore.output(2)});
  EXPECT_TENSOR_EQ(got[0], F32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(got[1], Str({}, {"text"}));
  EXPECT_TENSOR_EQ(got[2], I64({}, {-5}));
  // Merging again: the parts are gone.
  EXPECT_STATUS(RunStatus(sess, merge), absl::StatusCode::kNotFound, "part-00000-of-00002.index' does not exist");
}

TEST(SaveRestoreV2KernelsTest, ABadPartMergesNothing) {
  ScratchDir dir;
  const std::string part0 = dir / "p0", part1 = dir / "p1", dest = dir / "model";
  Graph g;
  Operation s0 = SaveV2(g, part0, {"a"}, {constant(g, F32({2}, {1, 2}))}, "s0");
  Operation s1 = SaveV2(g, part1, {"a"}, {constant(g, F32({1}, {3}))}, "s1");
  Operation merge = g.AddOperation("MergeV2Checkpoints", "merge",
                                   {constant(g, Str({2}, {part0, part1})), constant(g, Str({}, {dest}))}, {});
  Session sess(g);
  sess.run(s0);
  sess.run(s1);
  EXPECT_STATUS(RunStatus(sess, merge), absl::StatusCode::kInvalidArgument, "tensor 'a' is in two checkpoints");
  const std::vector<std::string> before = dir.List();
  // A damaged index: DataLoss naming it, and nothing renamed.
  std::string bytes = testing::ReadBytes(part1 + ".index");
  bytes.resize(bytes.size() - 5);
  testing::WriteBytes(part1 + ".index", bytes);
  EXPECT_STATUS(RunStatus(sess, merge), absl::StatusCode::kDataLoss, "p1.index");
  EXPECT_EQ(dir.List(), before);
}

}  // namespace
}  // namespace tw
