#include "core/crc32c.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace tw::crc32c {
namespace {

TEST(Crc32cTest, MaskIsTensorFlowsAndUnmaskInvertsIt) {
  EXPECT_EQ(Mask(0), 0xa282ead8u);  // the CRC of nothing, masked
  for (uint32_t crc : {0u, 1u, 0xe3069283u, 0xffffffffu, 0x80000000u}) {
    EXPECT_NE(Mask(crc), crc);
    EXPECT_EQ(Unmask(Mask(crc)), crc);
  }
}

TEST(Crc32cTest, KnownVectors) {
  // The check value of the CRC-32C catalogue and the test vectors of RFC 3720, B.4.
  EXPECT_EQ(Value("123456789", 9), 0xE3069283u);
  std::string zeros(32, '\0'), ones(32, '\xff'), ascending(32, '\0'), descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  EXPECT_EQ(Value(zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(Value(ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(Value(ascending.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(Value(descending.data(), 32), 0x113FDB5Cu);
  EXPECT_EQ(Value("", 0), 0u);
  EXPECT_EQ(ExtendPortable(0, "123456789", 9), 0xE3069283u);
}

TEST(Crc32cTest, PortableAndHardwareAgreeAtEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string data(300, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n = 0; start + n <= data.size(); n += 7) {
      EXPECT_EQ(Extend(0, data.data() + start, n), ExtendPortable(0, data.data() + start, n))
          << "start " << start << " length " << n;
    }
  }
}

TEST(Crc32cTest, ExtendingPieceByPieceEqualsTheWhole) {
  const std::string s = "The quick brown fox jumps over the lazy dog, twice over.";
  const uint32_t whole = Value(s.data(), s.size());
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    uint32_t crc = Extend(Value(s.data(), cut), s.data() + cut, s.size() - cut);
    EXPECT_EQ(crc, whole) << "cut at " << cut;
    EXPECT_EQ(ExtendPortable(ExtendPortable(0, s.data(), cut), s.data() + cut, s.size() - cut),
              whole);
  }
  EXPECT_NE(Value("123456788", 9), Value("123456789", 9));
}

}  // namespace
}  // namespace tw::crc32c
