// The MPI resolver's address exchange through Open MPI (built only when CMake finds MPI:
// the `tensorweave_mpi` library, TW_HAVE_MPI; the rest of tensorweave never links MPI).
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_MPI_MPI_ADDRESS_EXCHANGE_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_MPI_MPI_ADDRESS_EXCHANGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tw {

// MPI_Init, MPI_Allgather of every rank's `mine` ("host:port"), MPI_Finalize: the
// addresses in rank order. Finalizing at once lets each rank then run (and exit) as a plain
// process, which mpirun accepts; every rank must call it once, at the same point.
absl::StatusOr<std::vector<std::string>> MpiAllgatherAddresses(const std::string& mine);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_MPI_MPI_ADDRESS_EXCHANGE_H_
