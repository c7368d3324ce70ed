// StringFormat and PrintV2, as TensorFlow's string_format_op.cc and logging_ops.cc: the
// template with each placeholder replaced by an input summarized numpy-like, and that
// string written (with `end`) to stdout, stderr, the log or the end of a file.
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "checkpoint/checkpoint_format.h"
#include "core/file_access.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/summarize_value.h"

namespace tw {
namespace {

class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction& c) : OpKernel(c) {
    std::string tmpl, placeholder;
    c.GetAttr("template", &tmpl);
    c.GetAttr("placeholder", &placeholder);
    c.GetAttr("summarize", &summarize_);
    pieces_ = absl::StrSplit(tmpl, placeholder);
    if (c.num_inputs() != static_cast<int64_t>(pieces_.size()) - 1) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("num placeholders in template and num inputs must match: ",
                                                     pieces_.size() - 1, " vs. ", c.num_inputs())));
    }
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    std::string msg = pieces_[0];
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      absl::StrAppend(&msg, SummarizeValue(ctx.input(i), summarize_, /*print_v2=*/true), pieces_[i + 1]);
    }
    ctx.set_output(0, Tensor::Scalar<std::string>(std::move(msg)));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<std::string> pieces_;
  int64_t summarize_ = 3;
};

constexpr const char* kStreams[] = {"stdout", "stderr", "log(info)", "log(warning)", "log(error)"};

std::string UnknownStream(const std::string& stream) {
  std::string msg = absl::StrCat("Unknown output stream: ", stream, ", Valid streams are:");
  for (const char* s : kStreams) absl::StrAppend(&msg, " ", s);
  return msg;
}

// One line of TensorFlow's C++ log, "2026-01-02 03:04:05.678901: I <file>:<line>] <msg>",
// to stderr; TF_CPP_MIN_LOG_LEVEL (0 info, 1 warning, 2 error) silences the lower levels as
// it does TensorFlow's.
void LogLine(int level, const std::string& msg) {
  const char* min = std::getenv("TF_CPP_MIN_LOG_LEVEL");
  if (min != nullptr && level < std::atoi(min)) return;
  timeval now;
  gettimeofday(&now, nullptr);
  std::tm local;
  localtime_r(&now.tv_sec, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &local);
  char prefix[96];
  std::snprintf(prefix, sizeof(prefix), "%s.%06ld: %c %s:%d] ", stamp, static_cast<long>(now.tv_usec),
                "IWE"[level], "tensorweave/kernels/cpu/print_v2_kernels.cc", __LINE__);
  std::cerr << (prefix + msg + "\n") << std::flush;  // one write: lines of concurrent steps stay whole
}

class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction& c) : OpKernel(c), file_access_root_(FileAccessRootOf(c.resource_mgr())) {
    c.GetAttr("output_stream", &stream_);
    c.GetAttr("end", &end_);
    if (absl::StartsWith(stream_, "file://")) {
      path_ = stream_.substr(7);
      return;
    }
    if (std::find(std::begin(kStreams), std::end(kStreams), stream_) == std::end(kStreams)) {
      c.Fail(absl::InvalidArgumentError(UnknownStream(stream_)));
    }
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    if (in.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input is expected to be scalar, but got ", in.shape().DebugString()));
    }
    const std::string text = in.data<std::string>()[0] + end_;
    if (!path_.empty()) return AppendToFile(text);
    if (stream_ == "stdout") {
      std::cout << text << std::flush;
    } else if (stream_ == "stderr") {
      std::cerr << text << std::flush;
    } else {
      LogLine(stream_ == "log(info)" ? 0 : stream_ == "log(warning)" ? 1 : 2, text);
    }
    return absl::OkStatus();
  }

 private:
  absl::Status AppendToFile(const std::string& text) const {
    TW_RETURN_IF_ERROR(CheckFileAccess(path_, file_access_root_));  // a server's graphs stay in its root
    std::FILE* f = std::fopen(path_.c_str(), "ab");
    if (f == nullptr) return FileError(errno);
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int err = errno;
    if (std::fclose(f) != 0 || !written) return FileError(written ? errno : err);
    return absl::OkStatus();
  }
  // TensorFlow's "<path>; No such file or directory", with the code errno maps to.
  absl::Status FileError(int err) const {
    return absl::Status(checkpoint::ErrnoStatus(err, "open", path_).code(),
                        absl::StrCat(path_, "; ", std::strerror(err)));
  }

  std::string file_access_root_;
  std::string stream_, end_, path_;
};

}  // namespace

void RegisterPrintV2Kernels(KernelRegistry& r) {
  r.Register("StringFormat", kDeviceCpu, Factory<StringFormatOp>());
  r.Register("PrintV2", kDeviceCpu, Factory<PrintV2Op>());
}

}  // namespace tw
