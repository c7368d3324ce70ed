// StringFormat and PrintV2 against the text TensorFlow 2.20 produced for the same inputs
// (python/tests/test_print_v2.py compares whole tf.print programs live).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "testing/op_test_util.h"
#include "testing/scratch_dir.h"

namespace tw {
namespace {

using testing::Str;

AttrMap Format(const std::string& tmpl, int64_t summarize = 3) {
  return {{"template", MakeAttr(tmpl)}, {"placeholder", MakeAttr(std::string("{}"))},
          {"summarize", MakeAttr(summarize)}};
}

std::string Formatted(const std::string& tmpl, const std::vector<Tensor>& inputs, int64_t summarize = 3) {
  return RunBoth1("StringFormat", inputs, Format(tmpl, summarize)).data<std::string>()[0];
}

TEST(StringFormatTest, FillsPlaceholdersWithNumpyLikeSummaries) {
  EXPECT_EQ(Formatted("x={} y={}!", {I32({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor::Scalar<float>(0.1f)}),
            "x=[[1 2 3]\n [4 5 6]] y=0.1!");
  EXPECT_EQ(Formatted("{}", {Str({3}, {"a", "b\n", "c\"d"})}), "[\"a\" \"b\\n\" \"c\\\"d\"]");
  EXPECT_EQ(Formatted("{}", {Str({}, {"hi"})}), "\"hi\"");
  EXPECT_EQ(Formatted("{}", {Bool({2}, {true, false})}), "[1 0]");
  EXPECT_EQ(Formatted("<{}>", {Bool({7}, {true, false, true, true, false, true, false})}), "<[1 0 1 ... 0 1 0]>");
  EXPECT_EQ(Formatted("<{}>", {Bool({7}, {true, false, true, true, false, true, false})}, 0), "<>");
  EXPECT_EQ(Formatted("no inputs", {}), "no inputs");
  // The default placeholder is %s.
  EXPECT_EQ(RunOpOk("StringFormat", {I64({}, {7})}, {{"template", MakeAttr(std::string("<%s>"))}})
                .data<std::string>()[0],
            "<7>");
}

TEST(StringFormatTest, ElidesTheMiddleOfLongDimensions) {
  std::vector<int64_t> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  Tensor cube(DType::kInt64, TensorShape({2, 3, 4}));
  std::copy(v.begin(), v.end(), cube.data<int64_t>());
  EXPECT_EQ(Formatted("{}", {cube}),
            "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]");
  EXPECT_EQ(Formatted("{}", {I64({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}), "[0 1 2 ... 7 8 9]");
  EXPECT_EQ(Formatted("{}", {I64({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}, -1), "[0 1 2 3 4 5 6 7 8 9]");
  EXPECT_EQ(Formatted("{}", {I64({5}, {0, 1, 2, 3, 4})}, 1), "[0 ... 4]");
  EXPECT_EQ(Formatted("{}", {I64({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}, 0), "[ ...]");
  EXPECT_EQ(Formatted("{}", {I64({8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7})}, 2),
            "[[[0]]\n\n [[1]]\n\n ...\n\n [[6]]\n\n [[7]]]");
}

TEST(StringFormatTest, EmptyAndUnprintableTensors) {
  EXPECT_EQ(Formatted("{}", {F32({0}, {})}), "[]");
  EXPECT_EQ(Formatted("{}", {F32({0, 3}, {})}), "[]");
  EXPECT_EQ(Formatted("{}", {F32({2, 0}, {})}), "[\n ...]");
  EXPECT_EQ(Formatted("{}", {F32({2, 0, 3}, {})}), "[\n\n ...]");
  Tensor c(DType::kComplex64, TensorShape({4}));
  EXPECT_EQ(Formatted("{}", {c}), "[? ? ?...]");  // TensorFlow prints no complex numbers
}

TEST(StringFormatTest, PlaceholdersMustMatchInputs) {
  EXPECT_TRUE(FailsBoth("StringFormat", {I32({1}, {1})}, Format("{} {}"),
                        "num placeholders in template and num inputs must match: 2 vs. 1"));
}

TEST(PrintV2Test, RejectsUnknownStreamsAndNonScalars) {
  EXPECT_STATUS(RunOp("PrintV2", {Str({}, {"x"})}, {{"output_stream", MakeAttr(std::string("bogus"))}}).status(),
                absl::StatusCode::kInvalidArgument,
                "Unknown output stream: bogus, Valid streams are: stdout stderr log(info) log(warning) log(error)");
  EXPECT_TRUE(FailsFed("PrintV2", {Str({2}, {"a", "b"})}, {}, "Input is expected to be scalar, but got [2]"));
  EXPECT_STATUS(RunOp("PrintV2", {Str({2}, {"a", "b"})}).status(), absl::StatusCode::kInvalidArgument,
                "input must be a scalar, but has rank: 1");
}

TEST(PrintV2Test, AppendsToAFile) {
  testing::ScratchDir dir;
  const std::string path = dir / "out.txt";
  AttrMap attrs = {{"output_stream", MakeAttr("file://" + path)}, {"end", MakeAttr(std::string("|\n"))}};
  ASSERT_TRUE(RunOp("PrintV2", {Str({}, {"one"})}, attrs).ok());
  ASSERT_TRUE(RunOp("PrintV2", {Str({}, {"two"})}, attrs).ok());
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_EQ(text.str(), "one|\ntwo|\n");
  attrs["output_stream"] = MakeAttr("file://" + dir / "no/such.txt");
  EXPECT_STATUS(RunOp("PrintV2", {Str({}, {"x"})}, attrs).status(), absl::StatusCode::kNotFound,
                "no/such.txt; No such file or directory");
}

}  // namespace
}  // namespace tw
