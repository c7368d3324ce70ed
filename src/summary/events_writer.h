// Event files for TensorBoard: logdir/events.out.tfevents.<seconds>.<hostname><suffix>,
// TFRecord-framed Event protos whose first is file_version "brain.Event:2", as
// TensorFlow's FileWriter writes them. Events queue in memory and reach the file when
// max_queue are pending, on Flush, and every flush_secs from a background thread.
#ifndef TENSORWEAVE_SRC_SUMMARY_EVENTS_WRITER_H_
#define TENSORWEAVE_SRC_SUMMARY_EVENTS_WRITER_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "io/record_io.h"

namespace tw::summary {

class EventsWriter {
 public:
  struct Options {
    std::string filename_suffix;
    int max_queue = 10;       // pending events that force a write (TF's default)
    double flush_secs = 120;  // period of the background flush; <= 0: no thread
  };
  // Creates `logdir` (and its parents) when missing, then the file, and writes the
  // file_version event.
  static absl::StatusOr<std::unique_ptr<EventsWriter>> Create(const std::string& logdir, const Options& options);
  ~EventsWriter();  // Close(), errors lost.
  EventsWriter(const EventsWriter&) = delete;
  EventsWriter& operator=(const EventsWriter&) = delete;

  // Queues one serialized Event; InvalidArgument when it does not parse as one,
  // FailedPrecondition after Close.
  absl::Status WriteEvent(const std::string& serialized_event);
  absl::Status Flush();  // Writes what is queued and flushes the file.
  absl::Status Close();  // Flush, stop the thread, close the file; repeated calls are no-ops.
  const std::string& path() const { return path_; }

 private:
  EventsWriter(std::string path, std::unique_ptr<io::RecordWriter> writer, const Options& options);
  absl::Status FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushLoop();

  const std::string path_;
  const Options options_;
  absl::Mutex mu_;
  std::unique_ptr<io::RecordWriter> writer_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> queue_ ABSL_GUARDED_BY(mu_);
  absl::Status background_error_ ABSL_GUARDED_BY(mu_);  // From the flush thread; reported by the next call.
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::thread flusher_;
};

// The name TensorFlow gives an event file: events.out.tfevents.<10-digit seconds>.<host><suffix>.
std::string EventFileName(int64_t seconds, const std::string& hostname, const std::string& suffix);

}  // namespace tw::summary

#endif  // TENSORWEAVE_SRC_SUMMARY_EVENTS_WRITER_H_
