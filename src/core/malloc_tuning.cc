#include "core/malloc_tuning.h"

#include <malloc.h>

#include <climits>
#include <cstdlib>
#include <mutex>

namespace tw {

void TuneMallocForLargeTensors() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("TW_KEEP_MALLOC_DEFAULTS") != nullptr) return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // Also fixes the threshold (no sliding).
    mallopt(M_TRIM_THRESHOLD, INT_MAX);   // Trim only past 2 GiB of free heap.
  });
}

}  // namespace tw
