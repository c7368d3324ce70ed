#include "core/malloc_tuning.h"

#include <malloc.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace tw {

void TuneMallocForLargeTensors() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("TW_KEEP_MALLOC_DEFAULTS") != nullptr) return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // Also fixes the threshold (no sliding).
    mallopt(M_TRIM_THRESHOLD, INT_MAX);   // Trim only past 2 GiB of free heap.
    // Untrimmed, every extra arena keeps its peak: glibc's default of 8 per core let a
    // server's memory climb in steps as new RPC threads got arenas of their own.
    mallopt(M_ARENA_MAX, static_cast<int>(std::max(2u, std::thread::hardware_concurrency())));
  });
}

}  // namespace tw
