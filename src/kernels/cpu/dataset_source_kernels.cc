// Datasets that start a pipeline: from tensors (TensorDataset, TensorSliceDataset), a
// range, and from files (TextLineDataset, TFRecordDataset, FixedLengthRecordDatasetV2).
// Every file goes through the device's file access root (core/file_access.h).
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/file_access.h"
#include "io/record_io.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dataset_util.h"
#include "kernels/dataset.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

class TensorIterator : public IteratorImpl {
 public:
  explicit TensorIterator(Element e) : e_(std::move(e)) {}
  absl::Status GetNext(Element* out, bool* end) override {
    *end = given_;
    if (!*end) *out = e_;
    given_ = true;
    return absl::OkStatus();
  }
  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("given", given_);
    return absl::OkStatus();
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(int64_t given, r.ReadInt("given"));
    given_ = given != 0;
    return absl::OkStatus();
  }

 private:
  const Element e_;
  bool given_ = false;
};

class TensorDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    Element e(ctx.num_inputs());
    for (int i = 0; i < ctx.num_inputs(); ++i) e[i] = ctx.input(i);
    return MakeIteratorDataset("Tensor", types_, shapes_, [e]() -> absl::StatusOr<std::unique_ptr<IteratorImpl>> {
      return std::make_unique<TensorIterator>(e);
    });
  }
};

// An index in [0, size) saved and restored as "next" (TensorSlice, Range).
class IndexIterator : public IteratorImpl {
 public:
  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("next", next_);
    return absl::OkStatus();
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(next_, r.ReadInt("next"));
    return absl::OkStatus();
  }

 protected:
  explicit IndexIterator(int64_t first) : next_(first) {}
  int64_t next_;
};

class TensorSliceIterator : public IndexIterator {
 public:
  TensorSliceIterator(Element components, int64_t n) : IndexIterator(0), components_(std::move(components)), n_(n) {}
  absl::Status GetNext(Element* out, bool* end) override {
    *end = next_ >= n_;
    if (*end) return absl::OkStatus();
    out->clear();
    for (const Tensor& c : components_) {
      TW_ASSIGN_OR_RETURN(Tensor row, TensorRow(c, next_));
      out->push_back(std::move(row));
    }
    ++next_;
    return absl::OkStatus();
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    TW_RETURN_IF_ERROR(IndexIterator::Restore(r));
    if (next_ < 0 || next_ > n_) {
      return absl::InvalidArgumentError(absl::StrCat("iterator state '", r.prefix(), "::next' is ", next_,
                                                     ", outside the ", n_, " slices"));
    }
    return absl::OkStatus();
  }

 private:
  const Element components_;
  const int64_t n_;
};

class TensorSliceDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    Element components(ctx.num_inputs());
    int64_t n = -1;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      components[i] = ctx.input(i);
      if (components[i].rank() == 0) return absl::InvalidArgumentError("cannot slice a scalar component");
      if (n >= 0 && components[i].dim(0) != n) {
        return absl::InvalidArgumentError(absl::StrCat("all components must have the same size in the 0th dimension, ",
                                                       "got ", n, " and ", components[i].dim(0)));
      }
      n = components[i].dim(0);
    }
    return MakeIteratorDataset("TensorSlice", types_, shapes_,
                               [components, n]() -> absl::StatusOr<std::unique_ptr<IteratorImpl>> {
                                 return std::make_unique<TensorSliceIterator>(components, n);
                               });
  }
};

class RangeIterator : public IndexIterator {
 public:
  RangeIterator(int64_t start, int64_t stop, int64_t step, DType dtype)
      : IndexIterator(start), stop_(stop), step_(step), dtype_(dtype) {}
  absl::Status GetNext(Element* out, bool* end) override {
    *end = step_ > 0 ? next_ >= stop_ : next_ <= stop_;
    if (*end) return absl::OkStatus();
    Tensor t(dtype_, TensorShape());
    if (dtype_ == DType::kInt32) {
      t.scalar<int32_t>() = static_cast<int32_t>(next_);
    } else if (dtype_ == DType::kInt64) {
      t.scalar<int64_t>() = next_;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("RangeDataset of ", DTypeName(dtype_), " is not supported"));
    }
    *out = {t};
    next_ += step_;
    return absl::OkStatus();
  }

 private:
  const int64_t stop_, step_;
  const DType dtype_;
};

class RangeDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(int64_t start, ScalarInt64Input(ctx, 0, "start"));
    TW_ASSIGN_OR_RETURN(int64_t stop, ScalarInt64Input(ctx, 1, "stop"));
    TW_ASSIGN_OR_RETURN(int64_t step, ScalarInt64Input(ctx, 2, "step"));
    if (step == 0) return absl::InvalidArgumentError("step must be a non-zero integer.");
    DType dtype = types_.empty() ? DType::kInt64 : types_[0];
    return MakeIteratorDataset("Range", types_, shapes_, [=]() -> absl::StatusOr<std::unique_ptr<IteratorImpl>> {
      return std::make_unique<RangeIterator>(start, stop, step, dtype);
    });
  }
};

Tensor StringScalar(std::string s) {
  Tensor t(DType::kString, TensorShape());
  t.scalar<std::string>() = std::move(s);
  return t;
}

// A file reader giving one record per call: OutOfRange at the end of the file.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual absl::StatusOr<std::string> Read() = 0;
  // The byte offset of the next record, and back to one such offset: Unimplemented when
  // the file cannot seek (compressed), InvalidArgument or OutOfRange for a bad offset.
  virtual int64_t offset() const = 0;
  virtual absl::Status Seek(int64_t offset) = 0;
};
using OpenFn = std::function<absl::StatusOr<std::unique_ptr<RecordSource>>(const std::string& path)>;

// The records of each file in turn, each checked against the file access root. Its
// position is (file index, byte offset, records read in that file): a restore reopens the
// file and seeks, or, where it cannot (compressed), reads past those records.
class FileRecordIterator : public IteratorImpl {
 public:
  FileRecordIterator(std::vector<std::string> files, std::string root, OpenFn open)
      : files_(std::move(files)), root_(std::move(root)), open_(std::move(open)) {}

  absl::Status GetNext(Element* out, bool* end) override {
    while (true) {
      if (!read_) {
        if (file_ >= files_.size()) {
          *end = true;
          return absl::OkStatus();
        }
        TW_RETURN_IF_ERROR(Open());
      }
      absl::StatusOr<std::string> record = read_->Read();
      if (record.ok()) {
        ++records_;
        *end = false;
        *out = {StringScalar(*std::move(record))};
        return absl::OkStatus();
      }
      if (!absl::IsOutOfRange(record.status())) return record.status();
      read_ = nullptr;
      ++file_;
    }
  }

  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("file", static_cast<int64_t>(file_));
    w.WriteInt("records", read_ ? records_ : 0);
    w.WriteInt("offset", read_ ? read_->offset() : 0);
    return absl::OkStatus();
  }

  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(int64_t file, r.ReadInt("file"));
    TW_ASSIGN_OR_RETURN(int64_t records, r.ReadInt("records"));
    TW_ASSIGN_OR_RETURN(int64_t offset, r.ReadInt("offset"));
    if (file < 0 || file > static_cast<int64_t>(files_.size()) || records < 0) {
      return absl::InvalidArgumentError(absl::StrCat("iterator state '", r.prefix(), "': file ", file, " of ",
                                                     files_.size(), " files, record ", records));
    }
    file_ = static_cast<size_t>(file);
    read_ = nullptr;
    if (records == 0) return absl::OkStatus();
    TW_RETURN_IF_ERROR(Open());
    absl::Status seek = read_->Seek(offset);
    if (seek.ok()) {
      records_ = records;
      return absl::OkStatus();
    }
    if (!absl::IsUnimplemented(seek)) {
      return absl::FailedPreconditionError(absl::StrCat("cannot restore the reader of '", files_[file_],
                                                        "' to offset ", offset, ": ", seek.message(),
                                                        " (the file changed?)"));
    }
    for (int64_t i = 0; i < records; ++i) {
      absl::StatusOr<std::string> record = read_->Read();
      if (!record.ok()) {
        return absl::FailedPreconditionError(absl::StrCat("cannot restore the reader of '", files_[file_],
                                                          "' to record ", records, ": ",
                                                          record.status().message(), " (the file changed?)"));
      }
    }
    records_ = records;
    return absl::OkStatus();
  }

 private:
  absl::Status Open() {
    const std::string& path = files_[file_];
    TW_RETURN_IF_ERROR(CheckFileAccess(path, root_));
    TW_ASSIGN_OR_RETURN(read_, open_(path));
    records_ = 0;
    return absl::OkStatus();
  }

  const std::vector<std::string> files_;
  const std::string root_;
  const OpenFn open_;
  size_t file_ = 0;
  std::unique_ptr<RecordSource> read_;
  int64_t records_ = 0;  // read from files_[file_]
};

absl::StatusOr<std::vector<std::string>> FileNames(const OpKernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DType::kString || t.rank() > 1) {
    return absl::InvalidArgumentError("`filenames` must be a scalar or a vector of strings.");
  }
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.NumElements());
}

absl::StatusOr<std::string> StringInput(const OpKernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.NumElements() != 1) {
    return absl::InvalidArgumentError("expected a scalar string");
  }
  return t.data<std::string>()[0];
}

// The file's bytes: whole (text lines and fixed-length records are read from memory).
absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return absl::NotFoundError(absl::StrCat(path, "; No such file or directory"));
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) data.append(buf, n);
  std::fclose(f);
  return data;
}

class TFRecordSource : public RecordSource {
 public:
  explicit TFRecordSource(std::unique_ptr<io::RecordReader> reader) : reader_(std::move(reader)) {}
  absl::StatusOr<std::string> Read() override { return reader_->Read(); }
  int64_t offset() const override { return static_cast<int64_t>(reader_->offset()); }
  absl::Status Seek(int64_t offset) override {
    if (offset < 0) return absl::InvalidArgumentError(absl::StrCat("negative offset ", offset));
    return reader_->Seek(static_cast<uint64_t>(offset));
  }

 private:
  std::unique_ptr<io::RecordReader> reader_;
};

// Whole files read into memory: the offset is the position in `bytes`.
class InMemorySource : public RecordSource {
 public:
  int64_t offset() const override { return pos_; }
  absl::Status Seek(int64_t offset) override {
    if (offset < first_ || offset > static_cast<int64_t>(bytes_.size())) {
      return absl::OutOfRangeError(absl::StrCat("offset ", offset, " is outside the file's ", bytes_.size(), " bytes"));
    }
    pos_ = offset;
    return absl::OkStatus();
  }

 protected:
  InMemorySource(std::string bytes, int64_t first) : bytes_(std::move(bytes)), first_(first), pos_(first) {}
  const std::string bytes_;
  const int64_t first_;
  int64_t pos_;
};

class TextLineSource : public InMemorySource {
 public:
  explicit TextLineSource(std::string text) : InMemorySource(std::move(text), 0) {}
  absl::StatusOr<std::string> Read() override {
    const size_t pos = static_cast<size_t>(pos_);
    if (pos >= bytes_.size()) return absl::OutOfRangeError("end of file");
    size_t nl = bytes_.find('\n', pos);
    if (nl == std::string::npos) nl = bytes_.size();
    std::string line = bytes_.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos_ = static_cast<int64_t>(nl + 1);
    return line;
  }
};

class FixedLengthSource : public InMemorySource {
 public:
  FixedLengthSource(std::string bytes, int64_t header, int64_t record, int64_t footer)
      : InMemorySource(std::move(bytes), header), record_(record),
        stop_(static_cast<int64_t>(bytes_.size()) - footer) {}
  absl::StatusOr<std::string> Read() override {
    if (pos_ + record_ > stop_) return absl::OutOfRangeError("end of file");
    std::string r = bytes_.substr(pos_, record_);
    pos_ += record_;
    return r;
  }

 private:
  const int64_t record_, stop_;
};

class FileDatasetOp : public DatasetOpKernel {
 public:
  explicit FileDatasetOp(OpKernelConstruction& c) : DatasetOpKernel(c), root_(FileAccessRootOf(c.resource_mgr())) {
    types_ = {DType::kString};
    shapes_ = {PartialShape(TensorShape())};
  }

 protected:
  absl::StatusOr<DatasetPtr> Files(const char* kind, std::vector<std::string> files, OpenFn open) {
    std::string root = root_;
    return MakeIteratorDataset(kind, types_, shapes_, [=]() -> absl::StatusOr<std::unique_ptr<IteratorImpl>> {
      return std::make_unique<FileRecordIterator>(files, root, open);
    });
  }
  std::string root_;
};

class TFRecordDatasetOp : public FileDatasetOp {
 public:
  using FileDatasetOp::FileDatasetOp;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::vector<std::string> files, FileNames(ctx));
    TW_ASSIGN_OR_RETURN(std::string compression, StringInput(ctx, 1));
    TW_RETURN_IF_ERROR(io::CheckRecordCompression(compression));
    return Files("TFRecord", files, [compression](const std::string& path) -> absl::StatusOr<std::unique_ptr<RecordSource>> {
      TW_ASSIGN_OR_RETURN(std::unique_ptr<io::RecordReader> reader, io::RecordReader::Open(path, compression));
      return std::unique_ptr<RecordSource>(new TFRecordSource(std::move(reader)));
    });
  }
};

class TextLineDatasetOp : public FileDatasetOp {
 public:
  using FileDatasetOp::FileDatasetOp;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::vector<std::string> files, FileNames(ctx));
    TW_ASSIGN_OR_RETURN(std::string compression, StringInput(ctx, 1));
    if (!compression.empty()) {
      return absl::UnimplementedError("TextLineDataset: compressed text files are not supported yet");
    }
    return Files("TextLine", files, [](const std::string& path) -> absl::StatusOr<std::unique_ptr<RecordSource>> {
      TW_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(path));
      return std::unique_ptr<RecordSource>(new TextLineSource(std::move(data)));
    });
  }
};

class FixedLengthRecordDatasetOp : public FileDatasetOp {
 public:
  using FileDatasetOp::FileDatasetOp;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::vector<std::string> files, FileNames(ctx));
    TW_ASSIGN_OR_RETURN(int64_t header, ScalarInt64Input(ctx, 1, "header_bytes"));
    TW_ASSIGN_OR_RETURN(int64_t record, ScalarInt64Input(ctx, 2, "record_bytes"));
    TW_ASSIGN_OR_RETURN(int64_t footer, ScalarInt64Input(ctx, 3, "footer_bytes"));
    if (header < 0 || footer < 0) return absl::InvalidArgumentError("header_bytes and footer_bytes must be >= 0");
    if (record <= 0) return absl::InvalidArgumentError("record_bytes must be > 0");
    if (ctx.num_inputs() > 5) {
      TW_ASSIGN_OR_RETURN(std::string compression, StringInput(ctx, 5));
      if (!compression.empty()) return absl::UnimplementedError("compressed fixed-length records are not supported yet");
    }
    return Files("FixedLengthRecord", files, [=](const std::string& path) -> absl::StatusOr<std::unique_ptr<RecordSource>> {
      TW_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(path));
      return std::unique_ptr<RecordSource>(new FixedLengthSource(std::move(data), header, record, footer));
    });
  }
};

}  // namespace

void RegisterDatasetSourceKernels(KernelRegistry& r) {
  r.Register("TensorDataset", kDeviceCpu, Factory<TensorDatasetOp>());
  r.Register("TensorSliceDataset", kDeviceCpu, Factory<TensorSliceDatasetOp>());
  r.Register("RangeDataset", kDeviceCpu, Factory<RangeDatasetOp>());
  r.Register("TFRecordDataset", kDeviceCpu, Factory<TFRecordDatasetOp>());
  r.Register("TextLineDataset", kDeviceCpu, Factory<TextLineDatasetOp>());
  r.Register("FixedLengthRecordDatasetV2", kDeviceCpu, Factory<FixedLengthRecordDatasetOp>());
}

}  // namespace tw
