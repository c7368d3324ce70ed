// Kernels run with denormal floats flushed to zero (x86's FTZ and DAZ bits), as in
// TensorFlow. On x86 every operation on a denormal takes a microcode assist, ~100x slower,
// and training makes denormals: the Adam moments of a weight whose gradient stays 0 decay
// into them. Measured on the data-parallel benchmark: the ps spent as much time in Adam
// over 200k floats as both workers in their matmuls (8x its time on normal values).
#ifndef TENSORWEAVE_SRC_CORE_DENORMAL_H_
#define TENSORWEAVE_SRC_CORE_DENORMAL_H_

namespace tw {

// Flushes denormals in this thread from now on (threads of our pools call it at start).
void FlushDenormalsInThisThread();

// Flushes denormals in this thread until the end of the scope, then restores the mode
// (for threads we do not own that run kernels, e.g. gRPC's, and the client's own).
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal();
  ~ScopedFlushDenormal();
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
  unsigned saved_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_DENORMAL_H_
