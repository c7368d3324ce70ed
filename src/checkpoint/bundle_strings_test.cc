// String tensors in V2 bundles: TensorFlow's layout byte for byte (the data file is
// checked against a hand-built expectation), round trips, and damaged data refused.
#include "checkpoint/bundle_strings.h"

#include <gtest/gtest.h>

#include "core/crc32c.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"
#include "checkpoint/tensor_bundle.h"

namespace tw::checkpoint {
namespace {

using testing::F32;
using testing::ReadBytes;
using testing::ScratchDir;
using testing::Str;
using testing::WriteBytes;

uint32_t ExtendU32(uint32_t crc, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  return crc32c::Extend(crc, b, 4);
}

TEST(BundleStringsTest, LayoutIsTensorFlows) {
  const std::string big(200, 'z');  // Its length takes a two-byte varint.
  Tensor t = Str({3}, {"ab", "", big});
  uint32_t crc = 0;
  const std::string bytes = EncodeBundleStrings(t, &crc);
  // Lengths as varints, then the masked crc of the lengths (each as a uint32), then the bytes.
  uint32_t lengths_crc = ExtendU32(ExtendU32(ExtendU32(0, 2), 0), 200);
  const uint32_t masked = crc32c::Mask(lengths_crc);
  std::string expected = std::string("\x02\x00\xc8\x01", 4);
  for (int i = 0; i < 4; ++i) expected.push_back(static_cast<char>(masked >> (8 * i)));
  expected += "ab" + big;
  EXPECT_EQ(bytes, expected);
  uint32_t expected_crc = ExtendU32(lengths_crc, masked);
  expected_crc = crc32c::Extend(expected_crc, ("ab" + big).data(), 2 + big.size());
  EXPECT_EQ(crc, expected_crc);

  Tensor back(DType::kString, TensorShape({3}));
  ASSERT_TRUE(DecodeBundleStrings(bytes, crc32c::Mask(crc), "t", &back).ok());
  EXPECT_TENSOR_EQ(back, t);
}

TEST(BundleStringsTest, DamageIsDataLoss) {
  Tensor t = Str({2}, {"hello", "world"});
  uint32_t crc = 0;
  const std::string bytes = EncodeBundleStrings(t, &crc);
  const uint32_t masked = crc32c::Mask(crc);
  Tensor out(DType::kString, TensorShape({2}));
  for (size_t i = 0; i < bytes.size(); ++i) {  // Every flipped byte is caught.
    std::string bad = bytes;
    bad[i] ^= 0x01;
    EXPECT_EQ(DecodeBundleStrings(bad, masked, "t", &out).code(), absl::StatusCode::kDataLoss) << "byte " << i;
  }
  EXPECT_STATUS(DecodeBundleStrings(bytes.substr(0, 3), masked, "tensor 'x'", &out), absl::StatusCode::kDataLoss,
                "tensor 'x': string tensor data gives element 0 a length of 5 bytes");
  EXPECT_STATUS(DecodeBundleStrings(std::string("\0\0\1", 3), masked, "t", &out), absl::StatusCode::kDataLoss,
                "t: string tensor data is truncated before the lengths' checksum");
  EXPECT_STATUS(DecodeBundleStrings("\x80", masked, "t", &out), absl::StatusCode::kDataLoss,
                "is truncated in the length of element 0");
  EXPECT_STATUS(DecodeBundleStrings(bytes + "!", masked, "t", &out), absl::StatusCode::kDataLoss,
                "holds 11 bytes of strings, but the lengths add up to 10");
}

TEST(BundleStringsTest, BundlesRoundTripStringsBesideNumbers) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  std::vector<NamedTensor> tensors = {{"names", Str({2, 2}, {"", std::string("\0\xff", 2), "c", std::string(300, 'q')})},
                                      {"scalar", Tensor::Scalar(std::string("only"))},
                                      {"none", Str({0}, {})},
                                      {"w", F32({2}, {1, 2})}};
  ASSERT_TRUE(WriteTensorBundle(prefix, tensors).ok());
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  for (const NamedTensor& t : tensors) {
    auto got = (*reader)->Read(t.name);
    ASSERT_TRUE(got.ok()) << t.name << ": " << got.status();
    EXPECT_TENSOR_EQ(*got, t.tensor) << t.name;
  }
  // A flipped byte of the string data fails that tensor's checksum.
  const std::string data_path = prefix + ".data-00000-of-00001";
  std::string data = ReadBytes(data_path);
  data[0] ^= 0x01;  // "names" is written first.
  WriteBytes(data_path, data);
  EXPECT_EQ((*reader)->Read("names").status().code(), absl::StatusCode::kDataLoss);
  // A truncated data file is refused before anything is allocated.
  WriteBytes(data_path, data.substr(0, 4));
  EXPECT_STATUS((*reader)->Read("scalar").status(), absl::StatusCode::kDataLoss, "is truncated");
}

}  // namespace
}  // namespace tw::checkpoint
