// Keeps freed large tensor blocks for reuse. A training or serving step allocates the
// same large shapes every time; a fresh multi-MiB block from malloc is a fresh mmap whose
// every page faults on first touch (measured: most of the time of filling a new 64 MiB
// tensor). Blocks of at least kMinCachedBytes are rounded up to a 64 KiB multiple and, when
// freed, kept (up to kCacheCapacityBytes in all) for the next request of that size.
#ifndef TENSORWEAVE_SRC_TENSOR_BLOCK_CACHE_H_
#define TENSORWEAVE_SRC_TENSOR_BLOCK_CACHE_H_

#include <cstddef>

namespace tw::block_cache {

inline constexpr size_t kMinCachedBytes = size_t{1} << 20;
inline constexpr size_t kCacheCapacityBytes = size_t{1} << 30;

// The size a block of `bytes` really gets (a block must be freed with that size).
size_t BlockSize(size_t bytes);
// A block of BlockSize(bytes) bytes aligned to `alignment` (a power of two); null when
// out of memory.
void* Allocate(size_t alignment, size_t bytes);
// Frees (or keeps for reuse) a block from Allocate(_, bytes).
void Free(void* block, size_t bytes);
// Bytes kept for reuse now.
size_t CachedBytes();

}  // namespace tw::block_cache

#endif  // TENSORWEAVE_SRC_TENSOR_BLOCK_CACHE_H_
