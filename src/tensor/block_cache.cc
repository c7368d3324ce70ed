#include "tensor/block_cache.h"

#include <cstdlib>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace tw::block_cache {
namespace {

constexpr size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

struct Cache {
  absl::Mutex mu;
  absl::flat_hash_map<size_t, std::vector<void*>> free_blocks ABSL_GUARDED_BY(mu);
  size_t cached_bytes ABSL_GUARDED_BY(mu) = 0;
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // Never destroyed: blocks may be freed at exit.
  return *cache;
}

}  // namespace

size_t BlockSize(size_t bytes) { return bytes < kMinCachedBytes ? bytes : RoundUp(bytes, size_t{64} << 10); }

void* Allocate(size_t alignment, size_t bytes) {
  const size_t size = BlockSize(bytes);
  if (size >= kMinCachedBytes) {
    Cache& cache = TheCache();
    absl::MutexLock lock(&cache.mu);
    auto it = cache.free_blocks.find(size);
    if (it != cache.free_blocks.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      cache.cached_bytes -= size;
      return block;
    }
  }
  return std::aligned_alloc(alignment, RoundUp(size, alignment));
}

void Free(void* block, size_t bytes) {
  const size_t size = BlockSize(bytes);
  if (size >= kMinCachedBytes) {
    Cache& cache = TheCache();
    absl::MutexLock lock(&cache.mu);
    if (cache.cached_bytes + size <= kCacheCapacityBytes) {
      cache.free_blocks[size].push_back(block);
      cache.cached_bytes += size;
      return;
    }
  }
  std::free(block);
}

size_t CachedBytes() {
  Cache& cache = TheCache();
  absl::MutexLock lock(&cache.mu);
  return cache.cached_bytes;
}

}  // namespace tw::block_cache
