#include "train/tensor_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/tensor_bundle.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/status.h"
#include "train/atomic_file.h"
#include "train/checkpoint_format.h"
#include "core/crc32c.h"

namespace tw::checkpoint {
namespace {

// TensorFlow's VersionDef producer for tensor bundles (kTensorBundleVersion).
constexpr int kBundleVersion = 1;

// The index is built in memory (one small record per tensor), then written atomically.
class StringSink : public leveldb::WritableFile {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  leveldb::Status Append(const leveldb::Slice& data) override {
    out_->append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }

 private:
  std::string* out_;
};

// The index file, read whole, as the table reader's file.
class StringSource : public leveldb::RandomAccessFile {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result, char*) const override {
    if (offset > data_.size()) return leveldb::Status::IOError("read past the end of the index");
    *result = leveldb::Slice(data_.data() + offset, std::min<uint64_t>(n, data_.size() - offset));
    return leveldb::Status::OK();
  }
  size_t size() const { return data_.size(); }

 private:
  std::string data_;
};

absl::Status ValidateForBundle(const std::string& prefix, absl::Span<const NamedTensor> tensors) {
  absl::flat_hash_set<absl::string_view> names;
  for (const NamedTensor& t : tensors) {
    if (t.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save to '", prefix, "': a tensor name is empty"));
    }
    if (!names.insert(t.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot save to '", prefix, "': tensor name '", t.name, "' appears twice"));
    }
    if (!IsSavableDType(t.tensor.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save tensor '", t.name, "' to '", prefix,
                                                     "': dtype ", DTypeName(t.tensor.dtype()),
                                                     " cannot be saved"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
      return absl::NotFoundError(absl::StrCat("checkpoint index '", path, "' does not exist"));
    }
    return absl::PermissionDeniedError(absl::StrCat("cannot read checkpoint index '", path, "'"));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return std::move(contents).str();
}

absl::Status Corrupt(const std::string& path, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("checkpoint index '", path, "' is corrupted: ", what));
}

absl::StatusOr<BundleEntryInfo> ParseEntry(const std::string& path, const std::string& key,
                                           const std::string& value, int num_shards) {
  BundleEntryProto proto;
  if (!proto.ParseFromString(value)) return Corrupt(path, absl::StrCat("entry '", key, "' does not parse"));
  if (proto.slices_size() > 0) {
    return absl::UnimplementedError(absl::StrCat("checkpoint '", path, "': tensor '", key,
                                                 "' is a partitioned variable (saved in slices), "
                                                 "which tensorweave cannot read yet"));
  }
  BundleEntryInfo e;
  e.name = key;
  auto dtype = DTypeFromProto(proto.dtype());
  if (!dtype.ok() || !IsSavableDType(*dtype)) {
    const std::string name = dtype.ok() ? std::string(DTypeName(*dtype)) : absl::StrCat(proto.dtype());
    return absl::UnimplementedError(
        absl::StrCat("checkpoint '", path, "': tensor '", key, "' has dtype ", name, ", which cannot be read"));
  }
  e.dtype = *dtype;
  auto shape = TensorShapeFromProto(proto.shape());
  if (!shape.ok()) return Corrupt(path, absl::StrCat("entry '", key, "': ", shape.status().message()));
  e.shape = *shape;
  e.shard = proto.shard_id();
  e.offset = proto.offset();
  e.size = proto.size();
  e.masked_crc = proto.crc32c();
  if (e.shard < 0 || e.shard >= num_shards) {
    return Corrupt(path, absl::StrCat("entry '", key, "' names shard ", e.shard, " of ", num_shards));
  }
  const int64_t expected = e.shape.num_elements() * static_cast<int64_t>(DTypeSize(e.dtype));
  if (e.offset < 0 || e.size != expected) {
    return Corrupt(path, absl::StrCat("entry '", key, "' holds ", e.size, " bytes at offset ", e.offset, ", but ",
                                      DTypeName(e.dtype), " ", e.shape.DebugString(), " takes ", expected));
  }
  return e;
}

}  // namespace

std::string BundleIndexPath(const std::string& prefix) { return prefix + ".index"; }

std::string BundleDataPath(const std::string& prefix, int shard, int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

bool IsTensorBundle(const std::string& prefix) {
  struct stat st;
  return ::stat(BundleIndexPath(prefix).c_str(), &st) == 0;
}

void RemoveCheckpoint(const std::string& prefix) {
  ::unlink(BundleIndexPath(prefix).c_str());
  ::unlink(BundleDataPath(prefix, 0, 1).c_str());
  ::unlink(prefix.c_str());
}

absl::Status WriteTensorBundle(const std::string& prefix, absl::Span<const NamedTensor> tensors) {
  TW_RETURN_IF_ERROR(ValidateForBundle(prefix, tensors));
  const std::string index_path = BundleIndexPath(prefix);
  // An old index of this prefix must never describe the new data.
  if (::unlink(index_path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus(errno, "remove", index_path);

  std::vector<BundleEntryInfo> entries;
  {
    TW_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> data, AtomicFile::Create(BundleDataPath(prefix, 0, 1)));
    int64_t offset = 0;
    std::string scratch;
    for (const NamedTensor& t : tensors) {
      std::string_view bytes(static_cast<const char*>(t.tensor.raw_data()), t.tensor.TotalBytes());
      if constexpr (std::endian::native != std::endian::little) {
        scratch.assign(bytes);
        ToOrFromLittleEndian(scratch.data(), scratch.size(), DTypeSize(t.tensor.dtype()));
        bytes = scratch;
      }
      TW_RETURN_IF_ERROR(data->Append(bytes.data(), bytes.size()));
      entries.push_back({t.name, t.tensor.dtype(), t.tensor.shape(), 0, offset,
                         static_cast<int64_t>(bytes.size()), crc32c::Mask(crc32c::Value(bytes.data(), bytes.size()))});
      offset += static_cast<int64_t>(bytes.size());
    }
    TW_RETURN_IF_ERROR(data->Commit());
  }

  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::string index;
  StringSink sink(&index);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;  // TensorFlow's readers need no snappy
  leveldb::TableBuilder builder(options, &sink);
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kBundleVersion);
  builder.Add("", header.SerializeAsString());  // "" sorts before every tensor name
  for (const BundleEntryInfo& e : entries) {
    BundleEntryProto proto;
    proto.set_dtype(DTypeToProto(e.dtype));
    *proto.mutable_shape() = ShapeToProto(PartialShape(e.shape));
    proto.set_shard_id(e.shard);
    proto.set_offset(e.offset);
    proto.set_size(e.size);
    proto.set_crc32c(e.masked_crc);
    builder.Add(e.name, proto.SerializeAsString());
  }
  if (leveldb::Status s = builder.Finish(); !s.ok()) {
    return absl::InternalError(absl::StrCat("building '", index_path, "': ", s.ToString()));
  }
  return WriteFileAtomically(index_path, index);
}

absl::StatusOr<std::unique_ptr<TensorBundleReader>> TensorBundleReader::Open(const std::string& prefix) {
  const std::string path = BundleIndexPath(prefix);
  TW_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  auto source = std::make_unique<StringSource>(std::move(bytes));
  leveldb::Table* raw_table = nullptr;
  if (leveldb::Status s = leveldb::Table::Open(leveldb::Options(), source.get(), source->size(), &raw_table);
      !s.ok()) {
    return Corrupt(path, s.ToString());
  }
  std::unique_ptr<leveldb::Table> table(raw_table);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
  it->SeekToFirst();
  if (!it->Valid() || !it->key().empty()) {
    return Corrupt(path, it->status().ok() ? "no header record" : it->status().ToString());
  }
  BundleHeaderProto header;
  if (!header.ParseFromArray(it->value().data(), static_cast<int>(it->value().size()))) {
    return Corrupt(path, "the header record does not parse");
  }
  if (header.endianness() != BundleHeaderProto::LITTLE) {
    return absl::UnimplementedError(absl::StrCat("checkpoint '", prefix, "' is big-endian"));
  }
  if (header.num_shards() < 1) return Corrupt(path, absl::StrCat("num_shards is ", header.num_shards()));
  std::unique_ptr<TensorBundleReader> reader(new TensorBundleReader(prefix));
  reader->num_shards_ = header.num_shards();
  for (it->Next(); it->Valid(); it->Next()) {
    TW_ASSIGN_OR_RETURN(BundleEntryInfo e, ParseEntry(path, it->key().ToString(), it->value().ToString(),
                                                      reader->num_shards_));
    reader->by_key_[e.name] = reader->entries_.size();
    reader->entries_.push_back(std::move(e));
  }
  if (!it->status().ok()) return Corrupt(path, it->status().ToString());
  return reader;
}

absl::StatusOr<const BundleEntryInfo*> TensorBundleReader::Find(const std::string& key) const {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) {
    return absl::NotFoundError(absl::StrCat("checkpoint '", prefix_, "' has no tensor '", key, "'"));
  }
  return &entries_[it->second];
}

absl::StatusOr<Tensor> TensorBundleReader::Read(const std::string& key) const {
  TW_ASSIGN_OR_RETURN(const BundleEntryInfo* e, Find(key));
  return Read(*e);
}

absl::StatusOr<Tensor> TensorBundleReader::Read(const BundleEntryInfo& e) const {
  const std::string path = BundleDataPath(prefix_, e.shard, num_shards_);
  Tensor t(e.dtype, e.shape);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "': data file '", path, "' is missing"));
    }
    return ErrnoStatus(errno, "open", path);
  }
  char* dst = static_cast<char*>(t.raw_data());
  int64_t done = 0;
  while (done < e.size) {
    const ssize_t n = ::pread(fd, dst + done, static_cast<size_t>(e.size - done), e.offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      if (n == 0) {
        return absl::DataLossError(absl::StrCat("checkpoint data '", path, "' is truncated: tensor '", e.name,
                                                "' needs bytes up to ", e.offset + e.size));
      }
      return ErrnoStatus(err, "read", path);
    }
    done += n;
  }
  ::close(fd);
  if (crc32c::Mask(crc32c::Value(dst, static_cast<size_t>(e.size))) != e.masked_crc) {
    return absl::DataLossError(absl::StrCat("checkpoint data '", path, "' is corrupted: tensor '", e.name,
                                            "' fails its checksum"));
  }
  if constexpr (std::endian::native != std::endian::little) {
    ToOrFromLittleEndian(dst, static_cast<size_t>(e.size), DTypeSize(e.dtype));
  }
  if (e.dtype == DType::kBool) {
    for (int64_t i = 0; i < e.size; ++i) {
      if (static_cast<unsigned char>(dst[i]) > 1) {
        return absl::DataLossError(absl::StrCat("checkpoint data '", path, "': bool tensor '", e.name,
                                                "' holds a byte other than 0 or 1"));
      }
    }
  }
  return t;
}

}  // namespace tw::checkpoint
