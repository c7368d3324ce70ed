// Kernels of TensorFlow's checkpoint ops (schemas: src/ops/io_ops_v2.cc), on our V2
// tensor-bundle writer and reader (src/checkpoint/tensor_bundle.h): the data shard and the
// index are each written atomically, and a restore checks every entry (and every
// checksum) before producing any output, so a torn or corrupted file is DataLoss naming
// the file and no variable changes.
#include <sys/stat.h>

#include <cerrno>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/cpu/checkpoint_access.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/op_kernel.h"
#include "checkpoint/checkpoint_reader.h"
#include "checkpoint/tensor_bundle.h"
#include "checkpoint/tensor_bundle_merge.h"

namespace tw {
namespace {

absl::StatusOr<std::string> ScalarString(const OpKernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a string scalar, got ", DTypeName(t.dtype()),
                                                   " ", t.shape().DebugString()));
  }
  return t.scalar<std::string>();
}

// tensor_names and shape_and_slices: string vectors of `n` entries; a slice spec says which
// block of a partitioned variable an entry is ("" for a whole tensor).
struct NamesAndSlices {
  std::vector<std::string> names;
  std::vector<checkpoint::ShapeAndSlice> slices;
};
absl::StatusOr<NamesAndSlices> NamesInput(const OpKernelContext& ctx, int n) {
  const Tensor& names = ctx.input(1);
  const Tensor& slices = ctx.input(2);
  for (const auto& [t, what] : {std::pair{&names, "tensor_names"}, std::pair{&slices, "shape_and_slices"}}) {
    if (t->dtype() != DType::kString || t->rank() != 1 || t->dim(0) != n) {
      return absl::InvalidArgumentError(absl::StrCat(what, " must be a string vector of ", n, " entries, got ",
                                                     DTypeName(t->dtype()), " ", t->shape().DebugString()));
    }
  }
  NamesAndSlices out;
  out.names.assign(names.data<std::string>(), names.data<std::string>() + n);
  for (int i = 0; i < n; ++i) {
    auto spec = checkpoint::ParseShapeAndSlice(slices.data<std::string>()[i]);
    if (!spec.ok()) return absl::InvalidArgumentError(absl::StrCat("tensor '", out.names[i], "': ", spec.status().message()));
    out.slices.push_back(*std::move(spec));
  }
  return out;
}

// Creates the directories of `prefix`, as TensorFlow's writer does (a sharded save writes
// into "<prefix>_temp/").
absl::Status MakeParentDirs(const std::string& prefix) {
  for (size_t slash = prefix.find('/', 1); slash != std::string::npos; slash = prefix.find('/', slash + 1)) {
    const std::string dir = prefix.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::NotFoundError(absl::StrCat("cannot create directory '", dir, "' for checkpoint '", prefix, "'"));
    }
  }
  return absl::OkStatus();
}

// A kernel that opens checkpoint files by paths from its inputs: on a server, only inside
// its file access root (core/file_access.h).
class CheckpointPathKernel : public OpKernel {
 public:
  explicit CheckpointPathKernel(OpKernelConstruction& c) : OpKernel(c), root_(FileAccessRootOf(c.resource_mgr())) {}

 protected:
  std::string root_;
};

class SaveV2Op : public CheckpointPathKernel {
 public:
  using CheckpointPathKernel::CheckpointPathKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs() - 3;
    TW_ASSIGN_OR_RETURN(std::string prefix, ScalarString(ctx, 0, "prefix"));
    TW_ASSIGN_OR_RETURN(NamesAndSlices in, NamesInput(ctx, n));
    if (prefix.empty()) return absl::InvalidArgumentError("SaveV2: the prefix is empty");
    TW_RETURN_IF_ERROR(CheckCheckpointAccess(prefix, root_));
    std::vector<checkpoint::NamedTensor> tensors;
    std::vector<checkpoint::NamedSlice> slices;
    for (int i = 0; i < n; ++i) {
      if (in.slices[i].whole()) tensors.push_back({in.names[i], ctx.input(3 + i)});
      else slices.push_back({in.names[i], in.slices[i], ctx.input(3 + i)});
    }
    TW_RETURN_IF_ERROR(MakeParentDirs(prefix));
    return checkpoint::WriteTensorBundle(prefix, tensors, slices);
  }
};

class RestoreV2Op : public CheckpointPathKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction& c) : CheckpointPathKernel(c) {
    for (int i = 0; i < c.num_outputs(); ++i) dtypes_.push_back(c.output_type(i));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::string prefix, ScalarString(ctx, 0, "prefix"));
    TW_ASSIGN_OR_RETURN(NamesAndSlices in, NamesInput(ctx, ctx.num_outputs()));
    TW_RETURN_IF_ERROR(CheckCheckpointAccess(prefix, root_));
    if (checkpoint::IsTensorBundle(prefix)) {
      TW_ASSIGN_OR_RETURN(auto reader, checkpoint::TensorBundleReader::Open(prefix));
      return RestoreFrom(*reader, prefix, in, ctx);
    }
    TW_ASSIGN_OR_RETURN(auto reader, checkpoint::CheckpointReader::Open(prefix));
    return RestoreFrom(*reader, prefix, in, ctx);
  }

 private:
  // Every entry is found and checked, and every value read (checksums verified), before
  // any output is set.
  template <typename Reader>
  absl::Status RestoreFrom(const Reader& reader, const std::string& prefix, const NamesAndSlices& in,
                           OpKernelContext& ctx) const {
    const int n = ctx.num_outputs();
    std::vector<Tensor> values(n);
    checkpoint::SavedTensorReads reads;  // The shards of one variable read it once.
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(auto* entry, reader.Find(in.names[i]));
      if (entry->dtype != dtypes_[i]) {
        return absl::InvalidArgumentError(absl::StrCat("checkpoint '", prefix, "': tensor '", in.names[i],
                                                       "' has dtype ", DTypeName(entry->dtype),
                                                       " but RestoreV2 expects ", DTypeName(dtypes_[i])));
      }
      TW_ASSIGN_OR_RETURN(values[i], reads.Block(in.names[i], in.slices[i], prefix, [&] { return reader.Read(*entry); }));
    }
    for (int i = 0; i < n; ++i) ctx.set_output(i, std::move(values[i]));
    return absl::OkStatus();
  }
  std::vector<DType> dtypes_;
};

class MergeV2CheckpointsOp : public CheckpointPathKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction& c) : CheckpointPathKernel(c) {
    c.GetAttr("delete_old_dirs", &delete_old_dirs_);
    c.GetAttr("allow_missing_files", &allow_missing_files_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& sources = ctx.input(0);
    if (sources.dtype() != DType::kString || sources.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("checkpoint_prefixes must be a string vector, got ",
                                                     DTypeName(sources.dtype()), " ", sources.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(std::string destination, ScalarString(ctx, 1, "destination_prefix"));
    std::vector<std::string> prefixes(sources.data<std::string>(),
                                      sources.data<std::string>() + sources.NumElements());
    for (const std::string& prefix : prefixes) TW_RETURN_IF_ERROR(CheckCheckpointAccess(prefix, root_));
    TW_RETURN_IF_ERROR(CheckCheckpointAccess(destination, root_));
    TW_RETURN_IF_ERROR(MakeParentDirs(destination));
    return checkpoint::MergeTensorBundles(prefixes, destination, delete_old_dirs_, allow_missing_files_);
  }

 private:
  bool delete_old_dirs_ = true, allow_missing_files_ = false;
};

absl::StatusOr<int32_t> ScalarInt(const OpKernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 || t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be an int32 scalar"));
  }
  return t.scalar<int32_t>();
}

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::string base, ScalarString(ctx, 0, "basename"));
    TW_ASSIGN_OR_RETURN(int32_t shard, ScalarInt(ctx, 1, "shard"));
    TW_ASSIGN_OR_RETURN(int32_t num, ScalarInt(ctx, 2, "num_shards"));
    // As TensorFlow's: the numbers are formatted as given, not checked.
    ctx.set_output(0, Tensor::Scalar<std::string>(absl::StrFormat("%s-%05d-of-%05d", base, shard, num)));
    return absl::OkStatus();
  }
};

class ShardedFilespecOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::string base, ScalarString(ctx, 0, "basename"));
    TW_ASSIGN_OR_RETURN(int32_t num, ScalarInt(ctx, 1, "num_shards"));
    ctx.set_output(0, Tensor::Scalar<std::string>(absl::StrFormat("%s-?????-of-%05d", base, num)));
    return absl::OkStatus();
  }
};

// std::regex in ECMAScript syntax, which agrees with RE2's on the simple patterns TF's
// saver uses ("^s3://.*"). Inputs are capped: backtracking recursion grows with them.
class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction& c) : OpKernel(c) {
    std::string pattern;
    c.GetAttr("pattern", &pattern);
    if (!c.status().ok()) return;
    try {
      regex_ = std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("invalid pattern '", pattern, "': ", e.what())));
    }
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, in.shape(), DType::kBool));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      if (s.size() > kMaxInput) {
        return absl::InvalidArgumentError(
            absl::StrCat("StaticRegexFullMatch: input of ", s.size(), " bytes is over ", kMaxInput));
      }
      out->data<bool>()[i] = std::regex_match(s, regex_);
    }
    return absl::OkStatus();
  }

 private:
  static constexpr size_t kMaxInput = 4096;
  std::regex regex_;
};

}  // namespace

void RegisterSaveRestoreV2Kernels(KernelRegistry& r) {
  r.Register("SaveV2", kDeviceCpu, Factory<SaveV2Op>());
  r.Register("RestoreV2", kDeviceCpu, Factory<RestoreV2Op>());
  r.Register("MergeV2Checkpoints", kDeviceCpu, Factory<MergeV2CheckpointsOp>());
  r.Register("ShardedFilename", kDeviceCpu, Factory<ShardedFilenameOp>());
  r.Register("ShardedFilespec", kDeviceCpu, Factory<ShardedFilespecOp>());
  r.Register("StaticRegexFullMatch", kDeviceCpu, Factory<StaticRegexFullMatchOp>());
}

}  // namespace tw
