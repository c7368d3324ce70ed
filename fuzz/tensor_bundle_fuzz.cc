// TensorFlow V2 checkpoint reading: the input is a 4-byte little-endian index length, the
// index (a LevelDB table) and then the data shard; both are written to files, opened and
// every tensor read. Damage must give DataLoss (or another clean error), never a crash, a
// huge allocation or a value that fails its checksum.
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "fuzz/fuzz_util.h"
#include "checkpoint/tensor_bundle.h"

namespace {
void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t index_size;
  std::memcpy(&index_size, data, 4);
  data += 4;
  size -= 4;
  if (index_size > size) return 0;
  static const std::string prefix = "/tmp/tw_fuzz_bundle." + std::to_string(getpid());
  namespace ck = tw::checkpoint;
  WriteFile(ck::BundleIndexPath(prefix), data, index_size);
  WriteFile(ck::BundleDataPath(prefix, 0, 1), data + index_size, size - index_size);
  auto reader = ck::TensorBundleReader::Open(prefix);
  if (reader.ok()) {
    for (const auto& entry : (*reader)->entries()) {
      auto tensor = (*reader)->Read(entry);
      // A tensor read is never bigger than the data it came from.
      if (tensor.ok()) TW_FUZZ_CHECK(tensor->TotalBytes() <= size - index_size);
    }
  }
  ck::RemoveCheckpoint(prefix);
  return 0;
}
