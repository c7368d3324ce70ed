#include "summary/events_writer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "absl/strings/match.h"
#include "tensorweave/proto/event.pb.h"
#include "core/proto_namespace.h"
#include "testing/scratch_dir.h"

namespace tw::summary {
namespace {

using tw::testing::ScratchDir;

// Every event in the file, in order (stops at the end or the first error).
std::vector<Event> ReadAll(const std::string& path) {
  std::vector<Event> events;
  auto reader = io::RecordReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return events;
  for (;;) {
    auto record = (*reader)->Read();
    if (!record.ok()) {
      EXPECT_TRUE(absl::IsOutOfRange(record.status())) << record.status();
      return events;
    }
    Event e;
    EXPECT_TRUE(e.ParseFromString(*record));
    events.push_back(e);
  }
}

std::string ScalarEvent(int64_t step, float value) {
  Event e;
  e.set_wall_time(1.5);
  e.set_step(step);
  auto* v = e.mutable_summary()->add_value();
  v->set_tag("loss");
  v->set_simple_value(value);
  return e.SerializeAsString();
}

TEST(EventsWriter, FileNameAsTensorFlows) {
  EXPECT_EQ(EventFileName(1700000000, "host", ".sfx"), "events.out.tfevents.1700000000.host.sfx");
  EXPECT_EQ(EventFileName(42, "h", ""), "events.out.tfevents.0000000042.h");
}

TEST(EventsWriter, FirstEventIsTheFileVersionThenQueuedEvents) {
  ScratchDir dir;
  EventsWriter::Options options;
  options.max_queue = 2;
  options.flush_secs = 0;
  options.filename_suffix = ".test";
  auto writer = EventsWriter::Create(dir / "nested/logs", options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  const std::string path = (*writer)->path();
  EXPECT_TRUE(absl::StartsWith(path, dir / "nested/logs/events.out.tfevents.")) << path;
  EXPECT_TRUE(absl::EndsWith(path, ".test"));
  std::vector<Event> events = ReadAll(path);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_GT(events[0].wall_time(), 1.6e9);

  ASSERT_TRUE((*writer)->WriteEvent(ScalarEvent(1, 0.5f)).ok());
  ASSERT_TRUE((*writer)->WriteEvent(ScalarEvent(2, 0.25f)).ok());
  EXPECT_EQ(ReadAll(path).size(), 1u);  // two queued: not more than max_queue yet
  ASSERT_TRUE((*writer)->WriteEvent(ScalarEvent(3, 0.125f)).ok());
  events = ReadAll(path);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[3].step(), 3);
  EXPECT_EQ(events[3].summary().value(0).simple_value(), 0.125f);

  ASSERT_TRUE((*writer)->WriteEvent(ScalarEvent(4, 1.0f)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(ReadAll(path).size(), 5u);
  EXPECT_TRUE(absl::IsFailedPrecondition((*writer)->WriteEvent(ScalarEvent(5, 1.0f))));
  EXPECT_TRUE((*writer)->Close().ok());
}

TEST(EventsWriter, BackgroundThreadFlushes) {
  ScratchDir dir;
  EventsWriter::Options options;
  options.max_queue = 100;
  options.flush_secs = 0.05;
  auto writer = EventsWriter::Create(dir.path(), options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->WriteEvent(ScalarEvent(1, 2.0f)).ok());
  for (int i = 0; i < 200 && ReadAll((*writer)->path()).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_EQ(ReadAll((*writer)->path()).size(), 2u);
}

TEST(EventsWriter, RejectsWhatIsNotAnEvent) {
  ScratchDir dir;
  auto writer = EventsWriter::Create(dir.path(), {});
  ASSERT_TRUE(writer.ok());
  absl::Status s = (*writer)->WriteEvent("\xff\xff\xff");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::IsInvalidArgument(EventsWriter::Create("", {}).status()));
  // A logdir below a regular file cannot be made.
  ASSERT_TRUE(io::RecordWriter::Open(dir / "file").ok());
  EXPECT_FALSE(EventsWriter::Create(dir / "file/sub", {}).ok());
}

}  // namespace
}  // namespace tw::summary
