#include "tensor/block_cache.h"

#include <gtest/gtest.h>

#include "tensorweave/tensor.h"

namespace tw {
namespace {

TEST(BlockCacheTest, LargeBlocksAreReusedSmallOnesAreNot) {
  EXPECT_EQ(block_cache::BlockSize(100), 100u);
  EXPECT_EQ(block_cache::BlockSize((1 << 20) + 1), (1u << 20) + (64u << 10));

  const void* first;
  {
    Tensor big(DType::kFloat, TensorShape({1 << 20}));  // 4 MiB.
    first = big.raw_data();
  }
  const size_t cached = block_cache::CachedBytes();
  EXPECT_GE(cached, 4u << 20);
  {
    Tensor again(DType::kFloat, TensorShape({1 << 20}));
    EXPECT_EQ(again.raw_data(), first);  // The same block, its pages already mapped.
    EXPECT_EQ(block_cache::CachedBytes(), cached - block_cache::BlockSize((4 << 20) + 64));  // + header.
    // Another size does not take it.
    Tensor other(DType::kFloat, TensorShape({3 << 18}));
    EXPECT_NE(other.raw_data(), first);
  }
}

TEST(BlockCacheTest, KeepsAtMostItsCapacity) {
  std::vector<void*> blocks;
  const size_t size = 64 << 20;
  for (size_t i = 0; i < block_cache::kCacheCapacityBytes / size + 4; ++i) {
    blocks.push_back(block_cache::Allocate(64, size));
    ASSERT_NE(blocks.back(), nullptr);
  }
  for (void* b : blocks) block_cache::Free(b, size);
  EXPECT_LE(block_cache::CachedBytes(), block_cache::kCacheCapacityBytes);
  EXPECT_GE(block_cache::CachedBytes(), block_cache::kCacheCapacityBytes - size);
}

}  // namespace
}  // namespace tw
