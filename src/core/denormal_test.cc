#include "core/denormal.h"

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "core/threadpool.h"
#include "tensorweave/tensorweave.h"

namespace tw {
namespace {

// 1e-38 * 1e-3 is a denormal (below FLT_MIN ~1.2e-38); volatile keeps the compiler from
// folding it at compile time.
float DenormalProduct() {
  volatile float a = 1e-38f, b = 1e-3f;
  return a * b;
}

#if defined(__SSE__)
TEST(DenormalTest, ScopeFlushesAndRestores) {
  ASSERT_GT(DenormalProduct(), 0.0f);  // The default: gradual underflow.
  {
    ScopedFlushDenormal flush;
    EXPECT_EQ(DenormalProduct(), 0.0f);
  }
  EXPECT_GT(DenormalProduct(), 0.0f);
}

TEST(DenormalTest, PoolThreadsAndKernelsFlush) {
  ThreadPool pool("denormal_test", 2);
  float on_pool = -1;
  absl::Notification done;
  pool.Schedule([&] {
    on_pool = DenormalProduct();
    done.Notify();
  });
  done.WaitForNotification();
  EXPECT_EQ(on_pool, 0.0f);

  // A kernel run by the client's own thread (a local session) flushes too, and the
  // thread's mode is its own again afterwards.
  Graph g;
  Output product = constant(g, 1e-38f) * constant(g, 1e-3f);
  Session sess(g);
  EXPECT_EQ(sess.run(product).scalar<float>(), 0.0f);
  EXPECT_GT(DenormalProduct(), 0.0f);
}
#endif

}  // namespace
}  // namespace tw
