#include "distributed/mpi/mpi_address_exchange.h"

#include <mpi.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace tw {
namespace {

// "host:port" fits: host names are at most 253 characters.
constexpr int kSlot = 320;

absl::Status MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::UnavailableError(absl::StrCat("mpi resolver: ", call, " failed: ", std::string(text, length)));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> MpiAllgatherAddresses(const std::string& mine) {
  if (mine.size() >= static_cast<size_t>(kSlot)) {
    return absl::InvalidArgumentError(absl::StrCat("mpi resolver: address '", mine, "' is too long"));
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (int rc = MPI_Init(nullptr, nullptr); rc != MPI_SUCCESS) return MpiError("MPI_Init", rc);
  }
  // Errors come back as codes instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> sent(kSlot, 0), all(static_cast<size_t>(kSlot) * size, 0);
  std::memcpy(sent.data(), mine.data(), mine.size());
  const int rc = MPI_Allgather(sent.data(), kSlot, MPI_CHAR, all.data(), kSlot, MPI_CHAR, MPI_COMM_WORLD);
  if (!initialized) MPI_Finalize();
  if (rc != MPI_SUCCESS) return MpiError("MPI_Allgather", rc);
  std::vector<std::string> addresses;
  for (int r = 0; r < size; ++r) addresses.emplace_back(all.data() + static_cast<size_t>(r) * kSlot);
  return addresses;
}

}  // namespace tw
