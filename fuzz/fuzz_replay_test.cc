// Runs every fuzz target over its seed corpus (fuzz/corpus/<target>/) and the inputs
// that once crashed it (fuzz/regressions/<target>/), built with the normal compiler: a
// finding that comes back fails here, without libFuzzer.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz_targets.h"  // TW_FUZZ_TARGET_LIST, generated from fuzz/CMakeLists.txt

#define TW_DECLARE_FUZZ_TARGET(name) extern "C" int TwFuzz_##name(const uint8_t* data, size_t size);
TW_FUZZ_TARGET_LIST(TW_DECLARE_FUZZ_TARGET)

namespace tw {
namespace {

// Feeds each file under fuzz/<folder>/<target>/ to `entry`; returns how many.
int ReplayFolder(const std::string& target, const std::string& folder, int (*entry)(const uint8_t*, size_t)) {
  const std::filesystem::path dir = std::filesystem::path(TW_FUZZ_DIR) / folder / target;
  if (!std::filesystem::is_directory(dir)) return 0;
  int count = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    if (!file.is_regular_file()) continue;
    std::ifstream in(file.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    SCOPED_TRACE(file.path().string());
    EXPECT_EQ(entry(reinterpret_cast<const uint8_t*>(data.data()), data.size()), 0);
    ++count;
  }
  return count;
}

#define TW_REPLAY_TEST(name)                                              \
  TEST(FuzzReplayTest, name) {                                            \
    EXPECT_GT(ReplayFolder(#name, "corpus", &TwFuzz_##name), 0) << "no seed corpus for " #name; \
    ReplayFolder(#name, "regressions", &TwFuzz_##name);                   \
  }
TW_FUZZ_TARGET_LIST(TW_REPLAY_TEST)

}  // namespace
}  // namespace tw
