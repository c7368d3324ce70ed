// Writes a checkpoint file (format: checkpoint_format.h) atomically.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_WRITER_H_
#define TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "tensorweave/tensor.h"

namespace tw::checkpoint {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// Writes `tensors`, in the given order, to "<path>.tmp-<random>", fsyncs it and renames
// it over `path` (then fsyncs the directory); on any error the temporary file is removed
// and `path` is left as it was. InvalidArgument for an empty, overlong or duplicate name
// or an unsavable dtype; NotFound naming the directory when it does not exist; other
// file-system errors by errno (PermissionDenied, ResourceExhausted, ...).
absl::Status WriteCheckpoint(const std::string& path, absl::Span<const NamedTensor> tensors);

// Writes `contents` to `path` with the same temporary-file-and-rename protocol.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// The directory part of `path` ("." when there is none).
std::string DirName(const std::string& path);

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_WRITER_H_
