#include "checkpoint/tensor_bundle_merge.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"
#include "tensorweave/proto/tensor_bundle.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/status.h"
#include "checkpoint/atomic_file.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/leveldb_string_file.h"
#include "checkpoint/tensor_bundle.h"

namespace tw::checkpoint {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The raw entries (key -> BundleEntryProto bytes) of an index the bundle reader accepted.
absl::StatusOr<std::map<std::string, std::string>> RawEntries(const std::string& prefix) {
  const std::string path = BundleIndexPath(prefix);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  auto source = std::make_unique<StringSource>(std::move(bytes).str());
  leveldb::Table* raw = nullptr;
  if (leveldb::Status s = leveldb::Table::Open(leveldb::Options(), source.get(), source->size(), &raw); !s.ok()) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", path, "' is corrupted: ", s.ToString()));
  }
  std::unique_ptr<leveldb::Table> table(raw);
  leveldb::ReadOptions options;
  options.verify_checksums = true;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(options));
  std::map<std::string, std::string> entries;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!it->key().empty()) entries.emplace(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) {
    return absl::DataLossError(absl::StrCat("checkpoint index '", path, "' is corrupted: ", it->status().ToString()));
  }
  return entries;
}


}  // namespace

absl::Status MergeTensorBundles(const std::vector<std::string>& sources, const std::string& destination,
                                bool delete_old_dirs, bool allow_missing_files) {
  if (destination.empty()) return absl::InvalidArgumentError("MergeV2Checkpoints: the destination prefix is empty");
  std::vector<std::string> present;
  for (const std::string& src : sources) {
    if (!Exists(BundleIndexPath(src))) {
      if (allow_missing_files) continue;
      return absl::NotFoundError(absl::StrCat("checkpoint index '", BundleIndexPath(src), "' does not exist"));
    }
    present.push_back(src);
  }
  if (present.empty()) return absl::InvalidArgumentError("MergeV2Checkpoints: no checkpoint to merge");
  const int n = static_cast<int>(present.size());
  // Check everything before changing anything.
  std::map<std::string, std::string> merged;
  for (int i = 0; i < n; ++i) {
    TW_ASSIGN_OR_RETURN(auto reader, TensorBundleReader::Open(present[i]));
    for (const BundleEntryInfo& e : reader->entries()) {
      if (e.shard != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("MergeV2Checkpoints: checkpoint '", present[i], "' has several data shards"));
      }
    }
    if (!Exists(BundleDataPath(present[i], 0, 1))) {
      return absl::NotFoundError(
          absl::StrCat("checkpoint data '", BundleDataPath(present[i], 0, 1), "' does not exist"));
    }
    TW_ASSIGN_OR_RETURN(auto raw, RawEntries(present[i]));
    for (auto& [key, value] : raw) {
      BundleEntryProto entry;
      if (!entry.ParseFromString(value)) {
        return absl::DataLossError(absl::StrCat("checkpoint index '", BundleIndexPath(present[i]),
                                                "' is corrupted: entry does not parse"));
      }
      entry.set_shard_id(i);
      if (!merged.emplace(key, entry.SerializeAsString()).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("MergeV2Checkpoints: tensor '", key, "' is in two checkpoints (", present[i], ")"));
      }
    }
  }
  const std::string index_path = BundleIndexPath(destination);
  if (::unlink(index_path.c_str()) != 0 && errno != ENOENT) {
    return absl::InternalError(absl::StrCat("cannot remove '", index_path, "': ", std::strerror(errno)));
  }
  for (int i = 0; i < n; ++i) {
    const std::string from = BundleDataPath(present[i], 0, 1), to = BundleDataPath(destination, i, n);
    if (std::rename(from.c_str(), to.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("cannot rename '", from, "' to '", to, "': ", std::strerror(errno)));
    }
  }
  std::string index;
  StringSink sink(&index);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, &sink);
  BundleHeaderProto header;
  header.set_num_shards(n);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  builder.Add("", header.SerializeAsString());
  for (const auto& [key, value] : merged) builder.Add(key, value);
  if (leveldb::Status s = builder.Finish(); !s.ok()) {
    return absl::InternalError(absl::StrCat("building '", index_path, "': ", s.ToString()));
  }
  TW_RETURN_IF_ERROR(WriteFileAtomically(index_path, index));
  for (const std::string& src : present) {
    ::unlink(BundleIndexPath(src).c_str());
    if (delete_old_dirs && DirName(src) != DirName(destination)) ::rmdir(DirName(src).c_str());  // only if empty
  }
  return absl::OkStatus();
}

}  // namespace tw::checkpoint
