// The file-access-root check of the checkpoint kernels (ours and TensorFlow's V2 ops):
// every file a checkpoint at `prefix` may open (the prefix itself for an older single-file
// checkpoint, its index and its data shard) must lie inside the server's root. Checked at
// each run, since a directory on the way may become a symlink between runs.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CHECKPOINT_ACCESS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CHECKPOINT_ACCESS_H_

#include <string>

#include "core/file_access.h"
#include "tensorweave/status.h"
#include "checkpoint/tensor_bundle.h"

namespace tw {

inline absl::Status CheckCheckpointAccess(const std::string& prefix, const std::string& root) {
  for (const std::string& file : {prefix, checkpoint::BundleIndexPath(prefix), checkpoint::BundleDataPath(prefix, 0, 1)}) {
    TW_RETURN_IF_ERROR(CheckFileAccess(file, root));
  }
  return absl::OkStatus();
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CHECKPOINT_ACCESS_H_
