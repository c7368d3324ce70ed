#include "core/denormal.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace tw {
namespace {

#if defined(__SSE__)
constexpr unsigned kFlushToZero = 0x8000;      // FTZ: denormal results become 0.
constexpr unsigned kDenormalsAreZero = 0x0040;  // DAZ: denormal inputs read as 0.
unsigned GetMode() { return _mm_getcsr(); }
void SetMode(unsigned mode) { _mm_setcsr(mode); }
#else  // Other CPUs: their default, no flushing.
constexpr unsigned kFlushToZero = 0, kDenormalsAreZero = 0;
unsigned GetMode() { return 0; }
void SetMode(unsigned) {}
#endif

}  // namespace

void FlushDenormalsInThisThread() { SetMode(GetMode() | kFlushToZero | kDenormalsAreZero); }

// Runs around every kernel: only reads the mode where it is set already (our pools'
// threads), writing it (a slower, serializing instruction) only on other threads.
ScopedFlushDenormal::ScopedFlushDenormal() : saved_(GetMode()) {
  const unsigned flushed = saved_ | kFlushToZero | kDenormalsAreZero;
  if (flushed != saved_) SetMode(flushed);
}

ScopedFlushDenormal::~ScopedFlushDenormal() {
  if (GetMode() != saved_) SetMode(saved_);
}

}  // namespace tw
