#include <gtest/gtest.h>

#include <cstdlib>

#include "tensorweave/process.h"

int main(int argc, char** argv) {
  // Keep Abseil's lock-order checks on in the tests and the servers they start
  // (src/core/mutex_mode.h): a lock-order cycle aborts the test.
  setenv("TW_MUTEX_DEADLOCK_DETECTION", "1", 0);
  tw::InitProcess();
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
