#include "summary/events_writer.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "tensorweave/proto/event.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/status.h"

namespace tw::summary {
namespace {

std::string Hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

}  // namespace

std::string EventFileName(int64_t seconds, const std::string& hostname, const std::string& suffix) {
  return absl::StrFormat("events.out.tfevents.%010d.%s%s", seconds, hostname, suffix);
}

absl::StatusOr<std::unique_ptr<EventsWriter>> EventsWriter::Create(const std::string& logdir,
                                                                   const Options& options) {
  if (logdir.empty()) return absl::InvalidArgumentError("an event file needs a logdir");
  if (options.max_queue < 0) {
    return absl::InvalidArgumentError(absl::StrCat("max_queue must be >= 0, got ", options.max_queue));
  }
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec) return absl::FailedPreconditionError(absl::StrCat("cannot create logdir ", logdir, ": ", ec.message()));
  const double now = absl::ToUnixMicros(absl::Now()) / 1e6;
  const std::string path =
      (std::filesystem::path(logdir) / EventFileName(static_cast<int64_t>(now), Hostname(), options.filename_suffix))
          .string();
  TW_ASSIGN_OR_RETURN(std::unique_ptr<io::RecordWriter> writer, io::RecordWriter::Open(path));
  Event first;
  first.set_wall_time(now);
  first.set_file_version("brain.Event:2");
  first.mutable_source_metadata()->set_writer("tensorweave");
  TW_RETURN_IF_ERROR(writer->Write(first.SerializeAsString()));
  TW_RETURN_IF_ERROR(writer->Flush());  // TensorBoard sees the run as soon as it is created.
  return std::unique_ptr<EventsWriter>(new EventsWriter(path, std::move(writer), options));
}

EventsWriter::EventsWriter(std::string path, std::unique_ptr<io::RecordWriter> writer, const Options& options)
    : path_(std::move(path)), options_(options), writer_(std::move(writer)) {
  if (options_.flush_secs > 0) flusher_ = std::thread([this] { FlushLoop(); });
}

EventsWriter::~EventsWriter() { Close().IgnoreError(); }

void EventsWriter::FlushLoop() {
  const absl::Duration period = absl::Seconds(options_.flush_secs);
  absl::MutexLock lock(&mu_);
  while (!closed_) {
    // Wakes early only to stop: Close sets closed_.
    mu_.AwaitWithTimeout(absl::Condition(&closed_), period);
    if (closed_) break;
    absl::Status s = FlushLocked();
    if (!s.ok() && background_error_.ok()) background_error_ = s;
  }
}

absl::Status EventsWriter::WriteEvent(const std::string& serialized_event) {
  Event event;
  if (!event.ParseFromString(serialized_event)) {
    return absl::InvalidArgumentError(absl::StrCat("not a serialized Event (", serialized_event.size(), " bytes)"));
  }
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::FailedPreconditionError(absl::StrCat("event file ", path_, " is closed"));
  TW_RETURN_IF_ERROR(std::exchange(background_error_, absl::OkStatus()));
  queue_.push_back(serialized_event);
  if (static_cast<int>(queue_.size()) > options_.max_queue) return FlushLocked();
  return absl::OkStatus();
}

absl::Status EventsWriter::FlushLocked() {
  for (const std::string& record : queue_) TW_RETURN_IF_ERROR(writer_->Write(record));
  queue_.clear();
  return writer_->Flush();
}

absl::Status EventsWriter::Flush() {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::OkStatus();
  TW_RETURN_IF_ERROR(std::exchange(background_error_, absl::OkStatus()));
  return FlushLocked();
}

absl::Status EventsWriter::Close() {
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::OkStatus();
    status = std::exchange(background_error_, absl::OkStatus());
    if (status.ok()) status = FlushLocked();
    closed_ = true;
  }
  if (flusher_.joinable()) flusher_.join();
  absl::MutexLock lock(&mu_);
  absl::Status closed = writer_->Close();
  return status.ok() ? closed : status;
}

}  // namespace tw::summary
