// glibc malloc settings for a process that moves large tensors: by default glibc serves
// every block over a sliding threshold (128 KiB to 32 MiB) with a fresh mmap and gives
// freed memory back at once, so each 1 MiB network buffer and tensor page-faults anew.
// Measured on 64 MiB transfers: faults fall from thousands to hundreds per transfer.
// The cost: freed memory stays with the process (its resident size keeps its peak).
#ifndef TENSORWEAVE_SRC_CORE_MALLOC_TUNING_H_
#define TENSORWEAVE_SRC_CORE_MALLOC_TUNING_H_

namespace tw {

// Keeps blocks under 32 MiB on the heap, (almost) never trims it and caps the arenas at
// one per core (at least 2). Once per process; a no-op when
// TW_KEEP_MALLOC_DEFAULTS is set in the environment.
void TuneMallocForLargeTensors();

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_MALLOC_TUNING_H_
