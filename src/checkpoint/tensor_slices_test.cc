// Slices of partitioned variables: TensorFlow's shape_and_slice specs, block copies, and
// bundles written in slices read back whole, with every inconsistent slice set refused.
#include "checkpoint/tensor_slices.h"

#include <gtest/gtest.h>

#include "checkpoint/tensor_bundle.h"
#include "tensorweave/proto/tensor_bundle.pb.h"
#include "core/proto_namespace.h"
#include "testing/scratch_dir.h"
#include "testing/test_util.h"

namespace tw::checkpoint {
namespace {

using testing::F32;
using testing::ScratchDir;

ShapeAndSlice Spec(const std::string& text) {
  auto spec = ParseShapeAndSlice(text);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

TEST(TensorSlicesTest, ParsesTensorFlowsSpecsAndFormatsThemBack) {
  const ShapeAndSlice s = Spec("10 4 5,5:-");
  EXPECT_EQ(s.full_shape, TensorShape({10, 4}));
  ASSERT_EQ(s.extents.size(), 2u);
  EXPECT_EQ(s.extents[0], (SliceExtent{5, 5}));
  EXPECT_EQ(s.extents[1], (SliceExtent{0, -1}));
  EXPECT_EQ(s.SliceShape(), TensorShape({5, 4}));
  EXPECT_EQ(FormatShapeAndSlice(s), "10 4 5,5:-");
  EXPECT_TRUE(Spec("").whole());
  EXPECT_EQ(FormatShapeAndSlice(Spec("")), "");
}

TEST(TensorSlicesTest, BadSpecsAreInvalidArgumentQuotingThem) {
  EXPECT_STATUS(ParseShapeAndSlice("10").status(), absl::StatusCode::kInvalidArgument,
                "shape_and_slice '10': expected the full shape's dims, then the slice");
  EXPECT_STATUS(ParseShapeAndSlice("10 x 0,1:-").status(), absl::StatusCode::kInvalidArgument, "bad dimension 'x'");
  EXPECT_STATUS(ParseShapeAndSlice("10 4 0,5").status(), absl::StatusCode::kInvalidArgument,
                "the slice has 1 dimensions, the shape 2");
  EXPECT_STATUS(ParseShapeAndSlice("10 4 8,5:-").status(), absl::StatusCode::kInvalidArgument,
                "extent '8,5' is not a block of dimension 0 (size 10)");
  EXPECT_STATUS(ParseShapeAndSlice("10 4 0,0:-").status(), absl::StatusCode::kInvalidArgument, "extent '0,0'");
  EXPECT_STATUS(ParseShapeAndSlice("10 4 -1,2:-").status(), absl::StatusCode::kInvalidArgument, "extent '-1,2'");
}

TEST(TensorSlicesTest, ExtractAndCopyIntoAreInverse) {
  const Tensor full = F32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const std::vector<SliceExtent> cols{{0, -1}, {1, 2}};
  const Tensor block = ExtractSlice(full, cols);
  EXPECT_TENSOR_EQ(block, F32({3, 2}, {1, 2, 5, 6, 9, 10}));
  Tensor rebuilt = F32({3, 4}, std::vector<float>(12, -1));
  CopySliceInto(block, cols, &rebuilt);
  EXPECT_TENSOR_EQ(rebuilt, F32({3, 4}, {-1, 1, 2, -1, -1, 5, 6, -1, -1, 9, 10, -1}));
}

TEST(TensorSlicesTest, SlicesAreSavedUnderTheWholeNameAndReadBackWhole) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  const std::vector<NamedSlice> slices{{"emb", Spec("5 2 3,2:-"), F32({2, 2}, {6, 7, 8, 9})},
                                       {"emb", Spec("5 2 0,3:-"), F32({3, 2}, {0, 1, 2, 3, 4, 5})}};
  ASSERT_TRUE(WriteTensorBundle(prefix, {{"bias", F32({1}, {0.5f})}}, slices).ok());
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> names;
  for (const BundleEntryInfo& e : (*reader)->entries()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bias", "emb"}));
  auto emb = (*reader)->Find("emb");
  ASSERT_TRUE(emb.ok());
  EXPECT_EQ((*emb)->shape, TensorShape({5, 2}));
  EXPECT_EQ((*emb)->slices.size(), 2u);
  auto whole = (*reader)->Read("emb");
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_TENSOR_EQ(*whole, F32({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // A shard of another partitioning gets its block of it.
  auto shard = SliceOfSaved(*whole, Spec("5 2 1,2:-"), "emb", prefix);
  ASSERT_TRUE(shard.ok());
  EXPECT_TENSOR_EQ(*shard, F32({2, 2}, {2, 3, 4, 5}));
  EXPECT_STATUS(SliceOfSaved(*whole, Spec("6 2 0,3:-"), "emb", prefix).status(), absl::StatusCode::kInvalidArgument,
                "tensor 'emb' has shape [5,2] but the slice '6 2 0,3:-' is of a variable of shape [6,2]");
}

TEST(TensorSlicesTest, InconsistentSlicesAreRefusedAndWriteNothing) {
  ScratchDir dir;
  const NamedSlice top{"t", Spec("4 2 0,2:-"), F32({2, 2}, {1, 2, 3, 4})};
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {}, {top}), absl::StatusCode::kInvalidArgument,
                "the slices of 't' hold 4 of its 8 values");
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {}, {top, top}), absl::StatusCode::kInvalidArgument,
                "the slices of 't' repeat '4 2 0,2:-'");
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {}, {top, {"t", Spec("6 2 2,4:-"), F32({4, 2}, std::vector<float>(8))}}),
                absl::StatusCode::kInvalidArgument, "the slices of 't' disagree: float32 of [6,2] and float32 of [4,2]");
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {}, {top, {"t", Spec("4 2 2,2:-"), F32({1, 2}, {1, 2})}}),
                absl::StatusCode::kInvalidArgument, "include '4 2 2,2:-' holding [1,2]");
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {{"t", F32({1}, {1})}}, {top}), absl::StatusCode::kInvalidArgument,
                "tensor 't' is given both whole and in slices");
  EXPECT_TRUE(dir.List().empty());
}

}  // namespace
}  // namespace tw::checkpoint
