#include "checkpoint/leveldb_string_file.h"
#include "checkpoint/tensor_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/tensor_bundle.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/status.h"
#include "checkpoint/atomic_file.h"
#include "checkpoint/bundle_strings.h"
#include "checkpoint/checkpoint_format.h"
#include "core/crc32c.h"

namespace tw::checkpoint {
namespace {

// TensorFlow's VersionDef producer for tensor bundles (kTensorBundleVersion).
constexpr int kBundleVersion = 1;

// Bundles hold what the TWCKPT01 format holds, plus strings (in TensorFlow's layout).
bool IsBundleDType(DType dtype) { return IsSavableDType(dtype) || dtype == DType::kString; }

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
    if (!IsBundleDType(t.tensor.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save tensor '", t.name, "' to '", prefix,
                                                     "': dtype ", DTypeName(t.tensor.dtype()),
                                                     " cannot be saved"));
    }
  }
  return absl::OkStatus();
}

// Slices of one name agree on dtype and full shape, are blocks of it (not the whole), none
// twice, and tile it (TensorFlow's reader assembles the variable from them); no name is
// saved both whole and in slices.
absl::Status ValidateSlices(const std::string& prefix, absl::Span<const NamedTensor> tensors,
                            absl::Span<const NamedSlice> slices) {
  absl::flat_hash_map<absl::string_view, std::vector<const NamedSlice*>> by_name;
  for (const NamedSlice& s : slices) by_name[s.name].push_back(&s);
  for (const NamedTensor& t : tensors) {
    if (by_name.contains(t.name)) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save to '", prefix, "': tensor '", t.name,
                                                     "' is given both whole and in slices"));
    }
  }
  for (const auto& [name, parts] : by_name) {
    const std::string what = absl::StrCat("cannot save to '", prefix, "': the slices of '", name, "' ");
    int64_t covered = 0;
    for (const NamedSlice* s : parts) {
      if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("cannot save to '", prefix, "': a tensor name is empty"));
      if (s->spec.whole()) return absl::InvalidArgumentError(absl::StrCat(what, "include a whole tensor"));
      if (s->tensor.dtype() != parts[0]->tensor.dtype() || s->spec.full_shape != parts[0]->spec.full_shape) {
        return absl::InvalidArgumentError(absl::StrCat(what, "disagree: ", DTypeName(s->tensor.dtype()), " of ",
                                                       s->spec.full_shape.DebugString(), " and ",
                                                       DTypeName(parts[0]->tensor.dtype()), " of ",
                                                       parts[0]->spec.full_shape.DebugString()));
      }
      if (s->tensor.shape() != s->spec.SliceShape()) {
        return absl::InvalidArgumentError(absl::StrCat(what, "include '", FormatShapeAndSlice(s->spec), "' holding ",
                                                       s->tensor.shape().DebugString()));
      }
      for (const NamedSlice* o : parts) {
        if (o != s && o->spec.extents == s->spec.extents) {
          return absl::InvalidArgumentError(absl::StrCat(what, "repeat '", FormatShapeAndSlice(s->spec), "'"));
        }
      }
      covered += s->tensor.NumElements();
    }
    if (covered != parts[0]->spec.full_shape.num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat(what, "hold ", covered, " of its ",
                                                     parts[0]->spec.full_shape.num_elements(), " values"));
    }
    if (!IsBundleDType(parts[0]->tensor.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save tensor '", name, "' to '", prefix, "': dtype ",
                                                     DTypeName(parts[0]->tensor.dtype()), " cannot be saved"));
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
  BundleEntryInfo e;
  e.name = key;
  auto dtype = DTypeFromProto(proto.dtype());
  if (!dtype.ok() || !IsBundleDType(*dtype)) {
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
  for (const TensorSliceProto& slice : proto.slices()) {
    if (slice.extent_size() != e.shape.rank()) {
      return Corrupt(path, absl::StrCat("entry '", key, "' has a slice of rank ", slice.extent_size(),
                                        " for shape ", e.shape.DebugString()));
    }
    std::vector<SliceExtent> extents;
    for (int d = 0; d < slice.extent_size(); ++d) {
      const auto& x = slice.extent(d);
      SliceExtent extent{x.start(), x.has_length_case() == TensorSliceProto::Extent::kLength ? x.length() : -1};
      const int64_t end = extent.length < 0 ? e.shape.dim(d) : extent.start + extent.length;
      if (extent.start < 0 || (extent.length < 0 && extent.start != 0) || end < extent.start ||
          end > e.shape.dim(d)) {
        return Corrupt(path, absl::StrCat("entry '", key, "' has a slice outside ", e.shape.DebugString()));
      }
      extents.push_back(extent);
    }
    e.slices.push_back(std::move(extents));
  }
  if (!e.slices.empty()) return e;  // the data lives in the slices' entries
  if (e.dtype == DType::kString) {
    // At least one varint byte per element, then the 4-byte checksum of the lengths.
    if (e.offset < 0 || e.size < 4 || e.size - 4 < e.shape.num_elements()) {
      return Corrupt(path, absl::StrCat("entry '", key, "' holds ", e.size, " bytes at offset ", e.offset,
                                        ", too few for string ", e.shape.DebugString()));
    }
    return e;
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

namespace {

// TensorFlow's OrderedCode, the pieces its slice keys use.
void WriteNumIncreasing(uint64_t v, std::string* out) {  // length byte, then big-endian bytes
  char bytes[8];
  int n = 0;
  for (; v > 0; v >>= 8) bytes[n++] = static_cast<char>(v & 0xff);
  out->push_back(static_cast<char>(n));
  while (n > 0) out->push_back(bytes[--n]);
}

void WriteEscapedString(absl::string_view s, std::string* out) {  // 0x00 and 0xff escaped
  for (char c : s) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
    if (c == '\xff') out->push_back('\0');
  }
  out->append("\0\x01", 2);
}

// Signed values: the leading bits of the first bytes give the length (1..10 bytes) and
// the sign flips them, so that encodings sort as the numbers do.
void WriteSignedNumIncreasing(int64_t v, std::string* out) {
  static constexpr unsigned char kHeader[11][2] = {{0, 0},    {0x80, 0}, {0xc0, 0}, {0xe0, 0},
                                                  {0xf0, 0}, {0xf8, 0}, {0xfc, 0}, {0xfe, 0},
                                                  {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  const uint64_t x = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (x < 64) {
    out->push_back(static_cast<char>(kHeader[1][0] ^ static_cast<unsigned char>(v)));
    return;
  }
  int bits = 0;
  for (uint64_t y = x; y > 0; y >>= 1) ++bits;
  const int len = bits / 7 + 1;  // each byte carries 7 bits beyond the header's
  unsigned char buf[10];
  const unsigned char sign = v < 0 ? 0xff : 0;
  buf[0] = buf[1] = sign;
  for (int i = 0; i < 8; ++i) buf[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(v) >> (56 - 8 * i));
  unsigned char* begin = buf + 10 - len;
  begin[0] ^= kHeader[len][0];
  begin[1] ^= kHeader[len][1];
  out->append(reinterpret_cast<const char*>(begin), len);
}

}  // namespace

std::string SliceKey(const std::string& name, const std::vector<SliceExtent>& extents) {
  std::string key;
  WriteNumIncreasing(0, &key);  // every slice key starts so: after every tensor name
  WriteEscapedString(name, &key);
  WriteNumIncreasing(extents.size(), &key);
  for (const SliceExtent& e : extents) {
    WriteSignedNumIncreasing(e.start, &key);
    WriteSignedNumIncreasing(e.length, &key);
  }
  return key;
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

absl::Status WriteTensorBundle(const std::string& prefix, absl::Span<const NamedTensor> tensors,
                               absl::Span<const NamedSlice> slices) {
  TW_RETURN_IF_ERROR(ValidateForBundle(prefix, tensors));
  TW_RETURN_IF_ERROR(ValidateSlices(prefix, tensors, slices));
  // A slice's data is saved as a tensor under its slice key; its variable's entry lists it.
  std::vector<NamedTensor> all(tensors.begin(), tensors.end());
  absl::flat_hash_map<std::string, BundleEntryInfo> sliced;
  for (const NamedSlice& s : slices) {
    all.push_back({SliceKey(s.name, s.spec.extents), s.tensor});
    BundleEntryInfo& whole = sliced[s.name];
    whole.name = s.name;
    whole.dtype = s.tensor.dtype();
    whole.shape = s.spec.full_shape;
    whole.slices.push_back(s.spec.extents);
  }
  tensors = all;
  const std::string index_path = BundleIndexPath(prefix);
  // An old index of this prefix must never describe the new data.
  if (::unlink(index_path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus(errno, "remove", index_path);

  std::vector<BundleEntryInfo> entries;
  {
    TW_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> data, AtomicFile::Create(BundleDataPath(prefix, 0, 1)));
    int64_t offset = 0;
    std::string scratch;
    for (const NamedTensor& t : tensors) {
      if (t.tensor.dtype() == DType::kString) {
        uint32_t crc = 0;
        const std::string bytes = EncodeBundleStrings(t.tensor, &crc);
        TW_RETURN_IF_ERROR(data->Append(bytes.data(), bytes.size()));
        entries.push_back({t.name, t.tensor.dtype(), t.tensor.shape(), 0, offset,
                           static_cast<int64_t>(bytes.size()), crc32c::Mask(crc)});
        offset += static_cast<int64_t>(bytes.size());
        continue;
      }
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
  for (auto& [name, whole] : sliced) entries.push_back(std::move(whole));

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
    for (const std::vector<SliceExtent>& extents : e.slices) {
      TensorSliceProto* slice = proto.add_slices();
      for (const SliceExtent& x : extents) {
        TensorSliceProto::Extent* extent = slice->add_extent();
        if (x.length >= 0) {  // A whole dimension is an empty extent, as TensorFlow writes it.
          extent->set_start(x.start);
          extent->set_length(x.length);
        }
      }
    }
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
    if (!e.name.empty() && e.name[0] == '\0') {  // a slice of a partitioned variable
      reader->slice_entries_.emplace(e.name, std::move(e));
      continue;
    }
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
  return e.slices.empty() ? ReadData(e) : ReadSliced(e);
}

absl::StatusOr<Tensor> TensorBundleReader::ReadSliced(const BundleEntryInfo& e) const {
  Tensor full(e.dtype, e.shape);
  int64_t covered = 0;
  for (const std::vector<SliceExtent>& extents : e.slices) {
    auto it = slice_entries_.find(SliceKey(e.name, extents));
    if (it == slice_entries_.end()) {
      return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "': a slice of '", e.name, "' is missing"));
    }
    const BundleEntryInfo& part = it->second;
    DimVector dims;
    for (int d = 0; d < e.shape.rank(); ++d) {
      dims.push_back(extents[d].length < 0 ? e.shape.dim(d) : extents[d].length);
    }
    if (part.dtype != e.dtype || part.shape != TensorShape(dims)) {
      return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "': a slice of '", e.name, "' holds ",
                                              DTypeName(part.dtype), " ", part.shape.DebugString()));
    }
    TW_ASSIGN_OR_RETURN(Tensor values, ReadData(part));
    CopySliceInto(values, extents, &full);
    covered += values.NumElements();
  }
  // TensorFlow's partitions tile the variable; anything else would leave values unset.
  if (covered != e.shape.num_elements()) {
    return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "': the slices of '", e.name, "' hold ",
                                            covered, " of its ", e.shape.num_elements(), " values"));
  }
  return full;
}

absl::StatusOr<Tensor> TensorBundleReader::ReadData(const BundleEntryInfo& e) const {
  const std::string path = BundleDataPath(prefix_, e.shard, num_shards_);
  Tensor t(e.dtype, e.shape);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::DataLossError(absl::StrCat("checkpoint '", prefix_, "': data file '", path, "' is missing"));
    }
    return ErrnoStatus(errno, "open", path);
  }
  std::string string_bytes;  // A string tensor's encoded form, decoded after the read.
  if (e.dtype == DType::kString) {
    struct stat st;
    if (::fstat(fd, &st) != 0 || e.offset + e.size > st.st_size) {  // Before allocating e.size bytes.
      ::close(fd);
      return absl::DataLossError(absl::StrCat("checkpoint data '", path, "' is truncated: tensor '", e.name,
                                              "' needs bytes up to ", e.offset + e.size));
    }
    string_bytes.resize(static_cast<size_t>(e.size));
  }
  char* dst = e.dtype == DType::kString ? string_bytes.data() : static_cast<char*>(t.raw_data());
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
  if (e.dtype == DType::kString) {
    TW_RETURN_IF_ERROR(DecodeBundleStrings(string_bytes, e.masked_crc,
                                           absl::StrCat("checkpoint data '", path, "', tensor '", e.name, "'"), &t));
    return t;
  }
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
