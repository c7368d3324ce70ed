#include "distributed/step_watcher.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/synchronization/notification.h"

namespace tw {
namespace {

TEST(StepWatcherTest, AbortsOnceWhenTheClientGoes) {
  StepWatcher watcher(absl::Milliseconds(5));
  std::atomic<bool> gone{false};
  std::atomic<int> aborts{0};
  absl::Notification aborted;
  StepWatcher::Id id = watcher.Watch([&] { return gone.load(); },
                                     [&] {
                                       ++aborts;
                                       aborted.Notify();
                                     });
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(aborts.load(), 0);  // The client is still there.
  gone = true;
  aborted.WaitForNotification();
  absl::SleepFor(absl::Milliseconds(30));
  watcher.Unwatch(id);
  EXPECT_EQ(aborts.load(), 1);
}

TEST(StepWatcherTest, UnwatchWaitsForARunningAbortAndStopsLaterOnes) {
  StepWatcher watcher(absl::Milliseconds(5));
  std::atomic<bool> in_abort{false}, abort_finished{false};
  absl::Notification release;
  StepWatcher::Id slow = watcher.Watch([] { return true; },
                                       [&] {
                                         in_abort = true;
                                         release.WaitForNotification();
                                         abort_finished = true;
                                       });
  while (!in_abort) absl::SleepFor(absl::Milliseconds(1));
  std::atomic<bool> other_aborted{false};
  StepWatcher::Id never = watcher.Watch([] { return false; }, [&] { other_aborted = true; });
  watcher.Unwatch(never);  // Other steps are not held up by a running abort.
  std::thread releaser([&] {
    absl::SleepFor(absl::Milliseconds(20));
    release.Notify();
  });
  watcher.Unwatch(slow);
  EXPECT_TRUE(abort_finished.load());  // Unwatch returned only after the abort ended.
  releaser.join();
  EXPECT_FALSE(other_aborted.load());
}

}  // namespace
}  // namespace tw
