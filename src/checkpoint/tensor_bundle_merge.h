// MergeV2Checkpoints' work: several single-shard tensor bundles (a sharded save writes one
// per device) become one bundle of N shards at a destination prefix, as TensorFlow's
// MergeBundles does: each source's data file is renamed to <dest>.data-0000i-of-0000N and
// one index lists every entry with its shard id.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_TENSOR_BUNDLE_MERGE_H_
#define TENSORWEAVE_SRC_CHECKPOINT_TENSOR_BUNDLE_MERGE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tw::checkpoint {

// Every source index is read and checked first (DataLoss naming a damaged file, NotFound
// for a missing one unless allow_missing_files, InvalidArgument for a tensor in two
// sources or a source of several shards), so a bad source changes nothing. Then the data
// files are renamed and the merged index written atomically; the sources' indexes are
// removed, and with delete_old_dirs their directories too when left empty.
absl::Status MergeTensorBundles(const std::vector<std::string>& sources, const std::string& destination,
                                bool delete_old_dirs, bool allow_missing_files);

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_TENSOR_BUNDLE_MERGE_H_
