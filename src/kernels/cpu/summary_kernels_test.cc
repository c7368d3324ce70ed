// Summary kernels: the Summary each writes (tags, values, TF's histogram buckets, PNG
// images decoded back with libpng, merged values) and their errors. The Python tests
// compare the same ops with TensorFlow itself.
#include <gtest/gtest.h>
#include <png.h>

#include <cfloat>
#include <string>
#include <vector>

#include "summary/histogram.h"
#include "tensor/half.h"
#include "tensorweave/proto/summary.pb.h"
#include "core/proto_namespace.h"
#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Str;

Summary Parse(const Tensor& t) {
  Summary s;
  EXPECT_EQ(t.rank(), 0);
  EXPECT_TRUE(s.ParseFromString(t.scalar<std::string>()));
  return s;
}

Tensor U8(std::initializer_list<int64_t> shape, std::vector<uint8_t> v) { return testing::Make<uint8_t>(shape, v); }

AttrMap ImageAttrs(int64_t max_images = 3) {
  return {{"max_images", MakeAttr(max_images)}, {"bad_color", MakeAttr(U8({4}, {255, 0, 0, 255}))}};
}

// Pixels of a PNG, decoded with libpng's simplified API in its own format (gray, RGB, RGBA).
std::vector<uint8_t> DecodePng(const std::string& png, int channels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  EXPECT_TRUE(png_image_begin_read_from_memory(&image, png.data(), png.size()));
  image.format = channels == 1 ? PNG_FORMAT_GRAY : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
  std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(image));
  EXPECT_TRUE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr));
  return pixels;
}

TEST(SummaryKernels, ScalarSummaryOneValuePerTag) {
  Summary s = Parse(RunBoth1("ScalarSummary", {Str({2}, {"a", "b/c"}), I64({2}, {3, -4})}));
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(0).tag(), "a");
  EXPECT_EQ(s.value(0).simple_value(), 3.0f);
  EXPECT_EQ(s.value(1).tag(), "b/c");
  EXPECT_EQ(s.value(1).simple_value(), -4.0f);
  EXPECT_TRUE(FailsFed("ScalarSummary", {Str({1}, {"x"}), F32({2}, {1, 2})}, {},
                       "tags and values are not the same shape: [1] != [2] (tag 'x')"));
}

TEST(SummaryKernels, DefaultHistogramLimitsAreTensorFlows) {
  const std::vector<double>& limits = summary::Histogram::DefaultLimits();
  const size_t n = limits.size();
  ASSERT_EQ(n % 2, 1u);
  EXPECT_EQ(limits[n / 2], 0.0);
  EXPECT_EQ(limits[n / 2 + 1], 1e-12);
  EXPECT_EQ(limits.back(), DBL_MAX);
  EXPECT_EQ(limits.front(), -DBL_MAX);
  for (size_t i = 1; i < n; ++i) {
    ASSERT_LT(limits[i - 1], limits[i]);
    EXPECT_EQ(limits[i], -limits[n - 1 - i]);
  }
  EXPECT_DOUBLE_EQ(limits[n / 2 + 2], 1.1e-12);
  EXPECT_LT(limits[n - 2], 1e20);
  EXPECT_GE(limits[n - 2] * 1.1, 1e20);
}

TEST(SummaryKernels, HistogramSummaryMomentsAndBuckets) {
  Summary s = Parse(RunBoth1("HistogramSummary", {Tensor::Scalar(std::string("h")), F32({5}, {-1, 0, 0.5f, 2, 2})}));
  ASSERT_EQ(s.value_size(), 1);
  const HistogramProto& h = s.value(0).histo();
  EXPECT_EQ(s.value(0).tag(), "h");
  EXPECT_EQ(h.min(), -1.0);
  EXPECT_EQ(h.max(), 2.0);
  EXPECT_EQ(h.num(), 5.0);
  EXPECT_EQ(h.sum(), 3.5);
  EXPECT_EQ(h.sum_squares(), 9.25);
  // Non-empty buckets alternate with collapsed runs of empty ones; the values' buckets are
  // the first limits above them.
  double total = 0;
  const std::vector<double>& limits = summary::Histogram::DefaultLimits();
  for (int i = 0; i < h.bucket_size(); ++i) {
    total += h.bucket(i);
    if (h.bucket(i) > 0) {
      const auto it = std::find(limits.begin(), limits.end(), h.bucket_limit(i));
      ASSERT_NE(it, limits.end());
      ASSERT_NE(it, limits.begin());
      const double lower = *(it - 1);
      int in_bucket = 0;
      for (double v : {-1.0, 0.0, 0.5, 2.0, 2.0}) in_bucket += (v >= lower && v < *it);
      EXPECT_EQ(h.bucket(i), in_bucket) << h.bucket_limit(i);
    }
  }
  EXPECT_EQ(total, 5.0);
  EXPECT_EQ(h.bucket_limit(h.bucket_limit_size() - 1), DBL_MAX);

  Summary empty = Parse(RunBoth1("HistogramSummary", {Tensor::Scalar(std::string("e")), F32({0}, {})}));
  EXPECT_EQ(empty.value(0).histo().bucket_limit_size(), 1);
  EXPECT_EQ(empty.value(0).histo().bucket_limit(0), DBL_MAX);
  EXPECT_EQ(empty.value(0).histo().min(), DBL_MAX);
  EXPECT_EQ(empty.value(0).histo().max(), -DBL_MAX);
}

TEST(SummaryKernels, HistogramSummaryErrors) {
  EXPECT_TRUE(FailsFed("HistogramSummary", {Tensor::Scalar(std::string("h")), F32({2}, {1, kNaN})}, {},
                       "Nan in summary histogram for: op"));
  EXPECT_TRUE(FailsFed("HistogramSummary", {Tensor::Scalar(std::string("h")), F64({1}, {-kInf})}, {},
                       "Infinity in Histogram for: op"));
  EXPECT_TRUE(FailsBoth("HistogramSummary", {Str({2}, {"a", "b"}), F32({1}, {1})}, {}, "tags must be scalar"));
}

TEST(SummaryKernels, ImageSummaryUint8IsEncodedAsIs) {
  const Tensor images = U8({2, 2, 3, 1}, {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 255});
  Summary s = Parse(RunBoth1("ImageSummary", {Tensor::Scalar(std::string("img")), images}, ImageAttrs()));
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(0).tag(), "img/image/0");
  EXPECT_EQ(s.value(1).tag(), "img/image/1");
  const Summary::Image& second = s.value(1).image();
  EXPECT_EQ(second.height(), 2);
  EXPECT_EQ(second.width(), 3);
  EXPECT_EQ(second.colorspace(), 1);
  EXPECT_EQ(DecodePng(second.encoded_image_string(), 1), (std::vector<uint8_t>{60, 70, 80, 90, 100, 255}));
  // One image asked for: the tag has no index.
  Summary one = Parse(RunBoth1("ImageSummary", {Tensor::Scalar(std::string("img")), images}, ImageAttrs(1)));
  ASSERT_EQ(one.value_size(), 1);
  EXPECT_EQ(one.value(0).tag(), "img/image");
}

TEST(SummaryKernels, ImageSummaryScalesFloatImagesAsTensorFlow) {
  // Non-negative: x * 255 / max, truncated. With negatives: x * 127 / max|x| + 128.
  Summary pos = Parse(RunBoth1("ImageSummary", {Tensor::Scalar(std::string("p")), F32({1, 1, 4, 1}, {0, 1, 2, 4})},
                               ImageAttrs()));
  EXPECT_EQ(DecodePng(pos.value(0).image().encoded_image_string(), 1), (std::vector<uint8_t>{0, 63, 127, 255}));
  Summary neg = Parse(RunBoth1("ImageSummary", {Tensor::Scalar(std::string("n")), F64({1, 1, 3, 1}, {-2, 0, 1})},
                               ImageAttrs()));
  EXPECT_EQ(DecodePng(neg.value(0).image().encoded_image_string(), 1), (std::vector<uint8_t>{1, 128, 191}));
  // A pixel with any non-finite channel becomes bad_color; the rest scale without it.
  Summary bad = Parse(RunBoth1("ImageSummary",
                               {Tensor::Scalar(std::string("b")), F32({1, 1, 2, 3}, {kNaN, 1, 1, 0.5f, 1, 0})},
                               ImageAttrs()));
  EXPECT_EQ(DecodePng(bad.value(0).image().encoded_image_string(), 3),
            (std::vector<uint8_t>{255, 0, 0, 127, 255, 0}));
  // Half images compute in half: 255 / 3 rounds to 85.0 in half, so 3 -> 255 and 1 -> 85.
  Tensor halves(DType::kHalf, TensorShape({1, 1, 2, 1}));
  halves.data<half>()[0] = FloatToHalf(1.0f);
  halves.data<half>()[1] = FloatToHalf(3.0f);
  Summary h = Parse(RunBoth1("ImageSummary", {Tensor::Scalar(std::string("h")), halves}, ImageAttrs()));
  EXPECT_EQ(DecodePng(h.value(0).image().encoded_image_string(), 1), (std::vector<uint8_t>{85, 255}));
}

TEST(SummaryKernels, ImageSummaryErrors) {
  const Tensor tag = Tensor::Scalar(std::string("t"));
  EXPECT_TRUE(FailsBoth("ImageSummary", {tag, F32({2, 2, 2}, std::vector<float>(8))}, ImageAttrs(),
                        "Tensor must be 4-D with last dim 1, 3, or 4, not [2,2,2]"));
  EXPECT_TRUE(FailsBoth("ImageSummary", {tag, U8({1, 1, 1, 2}, {1, 2})}, ImageAttrs(),
                        "Tensor must be 4-D with last dim 1, 3, or 4, not [1,1,1,2]"));
  EXPECT_TRUE(FailsFed("ImageSummary", {Str({2}, {"a", "b"}), U8({1, 1, 1, 1}, {1})}, ImageAttrs(),
                       "Tags must be a scalar"));
  AttrMap short_color = {{"max_images", MakeAttr(int64_t{3})}, {"bad_color", MakeAttr(U8({1}, {9}))}};
  EXPECT_TRUE(FailsFed("ImageSummary", {tag, F32({1, 1, 1, 3}, {1, 2, 3})}, short_color,
                       "expected depth <= bad_color.size, got depth = 3, bad_color.size = 1"));
  EXPECT_TRUE(FailsFed("ImageSummary", {tag, U8({1, 1, 1, 1}, {1})}, ImageAttrs(0), "max_images must be >= 1"));
  // An empty batch of huge images is an empty summary, not a huge allocation.
  Summary none = Parse(RunBoth1("ImageSummary", {tag, F32({0, 20000, 20000, 4}, {})}, ImageAttrs()));
  EXPECT_EQ(none.value_size(), 0);
}

TEST(SummaryKernels, AudioSummaryV2WritesPcmWav) {
  // Two stereo frames: 0.5 -> 16384, -1 -> -32768, 2 clamps to 32767, 1e-5 rounds to 0.
  Summary s = Parse(RunBoth1("AudioSummaryV2", {Tensor::Scalar(std::string("a")), F32({1, 2, 2}, {0.5f, -1, 2, 1e-5f}),
                                                Tensor::Scalar(8000.4f)},
                             {{"max_outputs", MakeAttr(int64_t{1})}}));
  ASSERT_EQ(s.value_size(), 1);
  EXPECT_EQ(s.value(0).tag(), "a/audio");
  const Summary::Audio& a = s.value(0).audio();
  EXPECT_EQ(a.sample_rate(), 8000.4f);
  EXPECT_EQ(a.num_channels(), 2);
  EXPECT_EQ(a.length_frames(), 2);
  EXPECT_EQ(a.content_type(), "audio/wav");
  const std::string& wav = a.encoded_audio_string();
  ASSERT_EQ(wav.size(), 44u + 8u);
  EXPECT_EQ(wav.substr(0, 4), "RIFF");
  EXPECT_EQ(wav.substr(8, 8), "WAVEfmt ");
  auto u32 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<uint8_t>(wav[at]) | static_cast<uint8_t>(wav[at + 1]) << 8 |
                                 static_cast<uint8_t>(wav[at + 2]) << 16 | static_cast<uint8_t>(wav[at + 3]) << 24);
  };
  auto i16 = [&](size_t at) { return static_cast<int16_t>(static_cast<uint8_t>(wav[at]) | static_cast<uint8_t>(wav[at + 1]) << 8); };
  EXPECT_EQ(u32(4), 36u + 8u);
  EXPECT_EQ(u32(24), 8000u);  // the rate rounded
  EXPECT_EQ(u32(28), 8000u * 2 * 2);
  EXPECT_EQ(wav.substr(36, 4), "data");
  EXPECT_EQ(u32(40), 8u);
  EXPECT_EQ(i16(44), 16384);
  EXPECT_EQ(i16(46), -32768);
  EXPECT_EQ(i16(48), 32767);
  EXPECT_EQ(i16(50), 0);
  EXPECT_TRUE(FailsBoth("AudioSummaryV2", {Tensor::Scalar(std::string("a")), F32({4}, {0, 0, 0, 0}),
                                           Tensor::Scalar(8000.0f)}, {}, "Tensor must be 3-D or 2-D, got: [4]"));
  EXPECT_TRUE(FailsFed("AudioSummaryV2", {Tensor::Scalar(std::string("a")), F32({1, 1}, {0}), Tensor::Scalar(-1.0f)},
                       {}, "sample_rate must be > 0"));
}

TEST(SummaryKernels, MergeSummaryKeepsOrderAndRejectsDuplicates) {
  Summary a, b;
  a.add_value()->set_tag("x");
  b.add_value()->set_tag("y");
  b.add_value()->set_tag("");  // Tensor summaries may have no tag: never a duplicate.
  b.add_value()->set_tag("");
  Summary m = Parse(RunBoth1("MergeSummary", {Str({1}, {a.SerializeAsString()}), Str({}, {b.SerializeAsString()})}));
  ASSERT_EQ(m.value_size(), 4);
  EXPECT_EQ(m.value(0).tag(), "x");
  EXPECT_EQ(m.value(1).tag(), "y");
  EXPECT_TRUE(FailsFed("MergeSummary", {Str({2}, {a.SerializeAsString(), a.SerializeAsString()})}, {},
                       "Duplicate tag x found in summary inputs"));
  EXPECT_TRUE(FailsFed("MergeSummary", {Str({1}, {"\xff\xff"})}, {}, "Could not parse one of the summary inputs"));
}

TEST(SummaryKernels, TensorSummaryV2KeepsTensorAndMetadata) {
  SummaryMetadata metadata;
  metadata.mutable_plugin_data()->set_plugin_name("text");
  Summary s = Parse(RunBoth1("TensorSummaryV2", {Tensor::Scalar(std::string("t")), Str({2}, {"p", "q"}),
                                                 Tensor::Scalar(metadata.SerializeAsString())}));
  ASSERT_EQ(s.value_size(), 1);
  EXPECT_EQ(s.value(0).metadata().plugin_data().plugin_name(), "text");
  EXPECT_EQ(s.value(0).tensor().dtype(), DT_STRING);
  ASSERT_EQ(s.value(0).tensor().string_val_size(), 2);
  EXPECT_EQ(s.value(0).tensor().string_val(1), "q");
  EXPECT_TRUE(FailsFed("TensorSummaryV2", {Tensor::Scalar(std::string("t")), F32({1}, {1}),
                                           Tensor::Scalar(std::string("\xff"))},
                       {}, "Could not parse serialized_summary_metadata"));
}

}  // namespace
}  // namespace tw
