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

ScopedFlushDenormal::ScopedFlushDenormal() : saved_(GetMode()) { FlushDenormalsInThisThread(); }

ScopedFlushDenormal::~ScopedFlushDenormal() { SetMode(saved_); }

}  // namespace tw
