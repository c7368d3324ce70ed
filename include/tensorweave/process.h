// Process-wide settings, made once and explicitly at program start (not as a side effect
// of constructing a Session or Server): the `tw` binary's main, the Python module's init
// and C++ programs call tw::InitProcess() first thing in main(), before starting threads.
#ifndef TENSORWEAVE_PROCESS_H_
#define TENSORWEAVE_PROCESS_H_

namespace tw {

// - Abseil's mutex deadlock detection off (Debian's Abseil keeps its debug default: a
//   process-wide lock graph updated on every Lock(), and an abort on any lock-order cycle);
//   kept on when TW_MUTEX_DEADLOCK_DETECTION is set (the tests set it).
// - glibc malloc tuned for large tensors (src/core/malloc_tuning.h); glibc's defaults kept
//   when TW_KEEP_MALLOC_DEFAULTS is set.
// Idempotent and thread-safe; a program that never calls it keeps the libraries' defaults.
void InitProcess();

}  // namespace tw

#endif  // TENSORWEAVE_PROCESS_H_
