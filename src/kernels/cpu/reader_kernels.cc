// TF1's readers. A ReaderResource holds the file it is working on; a read takes the next file
// name from a queue when the current one is done (waiting while the queue is empty, OutOfRange
// once it is closed and empty) and hands out (key, value) records, as TensorFlow's ReaderBase:
//   TFRecord:          key "file:offset", value the record (CRCs checked; DataLoss otherwise)
//   TextLine:          key "file:line", value the line without "\n" / "\r\n"
//   FixedLengthRecord: key "file:index", value record_bytes bytes (after header_bytes)
//   WholeFile:         key the file name, value its contents
// Every file goes through the device's file access root (core/file_access.h).
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/file_access.h"
#include "io/record_io.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"
#include "kernels/fifo_queue.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, "; No such file or directory"));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  return contents.str();
}

class ReaderResource : public ResourceBase {
 public:
  std::string TypeName() const override { return "Reader"; }

  // Up to `n` records (n < 0: exactly one, waiting for files as needed). Fewer when the
  // queue of file names ends after some were read.
  absl::Status Read(FIFOQueueResource& queue, CancellationManager* cancellation, const std::string& root, int64_t n,
                    std::vector<std::string>* keys, std::vector<std::string>* values) {
    absl::MutexLock lock(&mu_);  // Reads of one reader are serialized, as TensorFlow's.
    const size_t wanted = n < 0 ? 1 : static_cast<size_t>(n);
    while (keys->size() < wanted) {
      if (!working_) {
        absl::StatusOr<std::string> file = NextWork(queue, cancellation);
        if (!file.ok()) {
          if (n >= 0 && !keys->empty() && absl::IsOutOfRange(file.status())) return absl::OkStatus();
          return file.status();
        }
        TW_RETURN_IF_ERROR(CheckFileAccess(*file, root));
        work_ = *file;
        TW_RETURN_IF_ERROR(Start(work_));
        working_ = true;
      }
      std::string key, value;
      bool produced = false, at_end = false;
      TW_RETURN_IF_ERROR(Next(&key, &value, &produced, &at_end));
      if (produced) {
        keys->push_back(std::move(key));
        values->push_back(std::move(value));
        ++records_produced_;
      }
      if (at_end) {
        Finish();
        working_ = false;
        ++work_units_completed_;
        if (!keys->empty()) break;  // As TensorFlow's ReadUpTo, a batch does not span files.
      }
    }
    return absl::OkStatus();
  }

  int64_t records_produced() {
    absl::MutexLock lock(&mu_);
    return records_produced_;
  }
  int64_t work_units_completed() {
    absl::MutexLock lock(&mu_);
    return work_units_completed_;
  }
  void Reset() {
    absl::MutexLock lock(&mu_);
    if (working_) Finish();
    working_ = false;
    records_produced_ = work_units_completed_ = 0;
  }

 protected:
  virtual absl::Status Start(const std::string& file) = 0;
  // One step over the current file: a record (produced), and/or its end (at_end).
  virtual absl::Status Next(std::string* key, std::string* value, bool* produced, bool* at_end) = 0;
  virtual void Finish() = 0;
  const std::string& work() const { return work_; }

 private:
  // The next file name: one scalar string from the queue (waits while it is empty).
  static absl::StatusOr<std::string> NextWork(FIFOQueueResource& queue, CancellationManager* cancellation) {
    absl::Notification done;
    absl::Status status;
    FIFOQueueResource::Tuple tuple;
    queue.Dequeue(cancellation, [&](absl::Status s, FIFOQueueResource::Tuple t) {
      status = s;
      tuple = std::move(t);
      done.Notify();
    });
    done.WaitForNotification();
    TW_RETURN_IF_ERROR(status);
    if (tuple.size() != 1 || tuple[0].dtype() != DType::kString || tuple[0].NumElements() != 1) {
      return absl::InvalidArgumentError("Expected to dequeue a one-element string tensor");
    }
    return tuple[0].data<std::string>()[0];
  }

  absl::Mutex mu_;
  bool working_ = false;
  std::string work_;
  int64_t records_produced_ = 0;
  int64_t work_units_completed_ = 0;
};

class TFRecordReader : public ReaderResource {
 public:
  explicit TFRecordReader(std::string compression) : compression_(std::move(compression)) {}

 protected:
  absl::Status Start(const std::string& file) override {
    TW_ASSIGN_OR_RETURN(reader_, io::RecordReader::Open(file, compression_));
    return absl::OkStatus();
  }
  absl::Status Next(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    const uint64_t offset = reader_->offset();
    absl::StatusOr<std::string> record = reader_->Read();
    if (absl::IsOutOfRange(record.status())) {
      *at_end = true;
      return absl::OkStatus();
    }
    TW_RETURN_IF_ERROR(record.status());
    *key = absl::StrCat(work(), ":", offset);
    *value = *std::move(record);
    *produced = true;
    return absl::OkStatus();
  }
  void Finish() override { reader_.reset(); }

 private:
  std::string compression_;
  std::unique_ptr<io::RecordReader> reader_;
};

// Readers over a file read whole when its work starts.
class BufferedReader : public ReaderResource {
 protected:
  absl::Status Start(const std::string& file) override {
    TW_ASSIGN_OR_RETURN(contents_, ReadWholeFile(file));
    pos_ = 0;
    index_ = 0;
    return absl::OkStatus();
  }
  void Finish() override { contents_.clear(); }
  std::string contents_;
  size_t pos_ = 0;
  int64_t index_ = 0;
};

class TextLineReader : public BufferedReader {
 public:
  explicit TextLineReader(int64_t skip_header_lines) : skip_(skip_header_lines) {}

 protected:
  absl::Status Next(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    while (pos_ < contents_.size()) {
      size_t end = contents_.find('\n', pos_);
      const size_t next = end == std::string::npos ? contents_.size() : end + 1;
      if (end == std::string::npos) end = contents_.size();
      size_t stop = end;
      if (stop > pos_ && contents_[stop - 1] == '\r') --stop;
      std::string line = contents_.substr(pos_, stop - pos_);
      pos_ = next;
      if (++index_ <= skip_) continue;  // Header lines count in the keys' line numbers.
      *key = absl::StrCat(work(), ":", index_);
      *value = std::move(line);
      *produced = true;
      return absl::OkStatus();
    }
    *at_end = true;
    return absl::OkStatus();
  }

 private:
  int64_t skip_;
};

class FixedLengthRecordReader : public BufferedReader {
 public:
  FixedLengthRecordReader(int64_t header, int64_t record, int64_t footer, int64_t hop)
      : header_(header), record_(record), footer_(footer), hop_(hop) {}

 protected:
  absl::Status Next(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    if (index_ == 0) pos_ = static_cast<size_t>(header_);
    const int64_t body_end = static_cast<int64_t>(contents_.size()) - footer_;
    if (static_cast<int64_t>(pos_) + record_ > body_end) {
      *at_end = true;
      return absl::OkStatus();
    }
    *key = absl::StrCat(work(), ":", index_);
    *value = contents_.substr(pos_, static_cast<size_t>(record_));
    *produced = true;
    pos_ += static_cast<size_t>(hop_ > 0 ? hop_ : record_);
    ++index_;
    return absl::OkStatus();
  }

 private:
  int64_t header_, record_, footer_, hop_;
};

class WholeFileReader : public BufferedReader {
 protected:
  absl::Status Next(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    *key = work();
    *value = std::move(contents_);
    *produced = true;
    *at_end = true;
    return absl::OkStatus();
  }
};

// Makes (or finds, for a shared_name) the reader; `make` builds a new one from the attrs.
class ReaderOp : public OpKernel {
 public:
  explicit ReaderOp(OpKernelConstruction& c) : OpKernel(c) {
    std::string shared_name;
    c.GetAttr("container", &container_);
    c.GetAttr("shared_name", &shared_name);
    name_ = shared_name.empty() ? c.name() : shared_name;
    const std::string& op = c.op();
    if (op == "TFRecordReaderV2") {
      std::string compression;
      c.GetAttr("compression_type", &compression);
      if (absl::Status s = io::CheckRecordCompression(compression); !s.ok()) c.Fail(s);
      make_ = [compression] { return std::make_shared<TFRecordReader>(compression); };
    } else if (op == "TextLineReaderV2") {
      int64_t skip = 0;
      c.GetAttr("skip_header_lines", &skip);
      make_ = [skip] { return std::make_shared<TextLineReader>(skip); };
    } else if (op == "FixedLengthRecordReaderV2") {
      int64_t header = 0, record = 0, footer = 0, hop = 0;
      std::string encoding;
      c.GetAttr("header_bytes", &header);
      c.GetAttr("record_bytes", &record);
      c.GetAttr("footer_bytes", &footer);
      c.GetAttr("hop_bytes", &hop);
      c.GetAttr("encoding", &encoding);
      if (c.status().ok() && (header < 0 || record <= 0 || footer < 0 || hop < 0)) {
        c.Fail(absl::InvalidArgumentError(absl::StrCat("FixedLengthRecordReader needs record_bytes > 0 and the other "
                                                       "sizes >= 0, got header_bytes ", header, ", record_bytes ",
                                                       record, ", footer_bytes ", footer, ", hop_bytes ", hop)));
      }
      if (c.status().ok() && !encoding.empty()) {
        c.Fail(absl::UnimplementedError(absl::StrCat("FixedLengthRecordReader encoding '", encoding,
                                                     "' is not supported (only uncompressed files)")));
      }
      make_ = [=] { return std::make_shared<FixedLengthRecordReader>(header, record, footer, hop); };
    } else {
      make_ = [] { return std::make_shared<WholeFileReader>(); };
    }
    handle_ = Tensor::Resource(ResourceHandle{c.device_name(), container_, name_});
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<ReaderResource> reader,
                        ctx.resource_mgr()->LookupOrCreateResource<ReaderResource>(
                            container_, name_, [this]() -> absl::StatusOr<std::shared_ptr<ReaderResource>> {
                              return make_();
                            }));
    (void)reader;
    ctx.set_output(0, handle_);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, name_;
  std::function<std::shared_ptr<ReaderResource>()> make_;
  Tensor handle_;
};

template <bool kUpTo>
class ReaderReadOp : public OpKernel {
 public:
  explicit ReaderReadOp(OpKernelConstruction& c) : OpKernel(c), root_(FileAccessRootOf(c.resource_mgr())) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<ReaderResource> reader,
                        LookupResourceInput<ReaderResource>(ctx, 0, "reader"));
    TW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueueResource> queue,
                        LookupResourceInput<FIFOQueueResource>(ctx, 1, "queue"));
    int64_t n = -1;
    if constexpr (kUpTo) {
      const Tensor& t = ctx.input(2);
      if (t.dtype() != DType::kInt64 || t.rank() != 0) {
        return absl::InvalidArgumentError("num_records must be a scalar int64");
      }
      n = t.scalar<int64_t>();
      if (n <= 0) return absl::InvalidArgumentError(absl::StrCat("num_records must be positive, got ", n));
    }
    std::vector<std::string> keys, values;
    TW_RETURN_IF_ERROR(reader->Read(*queue, ctx.cancellation(), root_, n, &keys, &values));
    if constexpr (kUpTo) {
      const int64_t got = static_cast<int64_t>(keys.size());
      TW_ASSIGN_OR_RETURN(Tensor * k, ctx.allocate_output(0, TensorShape({got}), DType::kString));
      TW_ASSIGN_OR_RETURN(Tensor * v, ctx.allocate_output(1, TensorShape({got}), DType::kString));
      for (int64_t i = 0; i < got; ++i) {
        k->data<std::string>()[i] = std::move(keys[i]);
        v->data<std::string>()[i] = std::move(values[i]);
      }
    } else {
      ctx.set_output(0, Tensor::Scalar<std::string>(std::move(keys[0])));
      ctx.set_output(1, Tensor::Scalar<std::string>(std::move(values[0])));
    }
    return absl::OkStatus();
  }

 private:
  std::string root_;
};

template <int kWhat>  // 0: records produced, 1: work units completed, 2: reset
class ReaderStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<ReaderResource> reader,
                        LookupResourceInput<ReaderResource>(ctx, 0, "reader"));
    if constexpr (kWhat == 0) ctx.set_output(0, Tensor::Scalar<int64_t>(reader->records_produced()));
    if constexpr (kWhat == 1) ctx.set_output(0, Tensor::Scalar<int64_t>(reader->work_units_completed()));
    if constexpr (kWhat == 2) reader->Reset();
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

void RegisterReaderKernels(KernelRegistry& r) {
  for (const char* op : {"TFRecordReaderV2", "TextLineReaderV2", "FixedLengthRecordReaderV2", "WholeFileReaderV2"}) {
    r.Register(op, kDeviceCpu, Factory<ReaderOp>());
  }
  r.Register("ReaderReadV2", kDeviceCpu, Factory<ReaderReadOp<false>>());
  r.Register("ReaderReadUpToV2", kDeviceCpu, Factory<ReaderReadOp<true>>());
  r.Register("ReaderNumRecordsProducedV2", kDeviceCpu, Factory<ReaderStateOp<0>>());
  r.Register("ReaderNumWorkUnitsCompletedV2", kDeviceCpu, Factory<ReaderStateOp<1>>());
  r.Register("ReaderResetV2", kDeviceCpu, Factory<ReaderStateOp<2>>());
}

}  // namespace tw
