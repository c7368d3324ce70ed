#include "core/deadline_timer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "absl/synchronization/notification.h"

namespace tw {
namespace {

TEST(DeadlineTimerTest, RunsCallbacksInDeadlineOrderAndNotCancelledOnes) {
  DeadlineTimer timer;
  absl::Mutex mu;
  std::vector<int> order;
  absl::Notification last;
  const absl::Time now = absl::Now();
  timer.Schedule(now + absl::Milliseconds(60), [&] {
    absl::MutexLock lock(&mu);
    order.push_back(3);
    last.Notify();
  });
  const int64_t cancelled = timer.Schedule(now + absl::Milliseconds(20), [&] {
    absl::MutexLock lock(&mu);
    order.push_back(99);
  });
  timer.Schedule(now + absl::Milliseconds(40), [&] {
    absl::MutexLock lock(&mu);
    order.push_back(2);
  });
  // Scheduled last but due first: it must not wait behind the later deadlines.
  timer.Schedule(now, [&] {
    absl::MutexLock lock(&mu);
    order.push_back(1);
  });
  EXPECT_TRUE(timer.Cancel(cancelled));
  EXPECT_FALSE(timer.Cancel(cancelled));
  ASSERT_TRUE(last.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_GE(absl::Now() - now, absl::Milliseconds(60));
  absl::MutexLock lock(&mu);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(DeadlineTimerTest, DestructorDropsPendingCallbacks) {
  std::atomic<int> ran{0};
  {
    DeadlineTimer timer;
    timer.Schedule(absl::Now() + absl::Hours(1), [&] { ran++; });
  }
  EXPECT_EQ(ran.load(), 0);
}

}  // namespace
}  // namespace tw
