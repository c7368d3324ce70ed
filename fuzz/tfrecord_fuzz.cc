// TFRecord reading: the input is written to a file and every record read. Damage must give
// DataLoss (or the clean end), never a crash, a hang or a huge allocation.
#include <unistd.h>

#include <fstream>

#include "fuzz/fuzz_util.h"
#include "io/record_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tw_fuzz_tfrecord." + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto reader = tw::io::RecordReader::Open(path);
  if (reader.ok()) {
    size_t total = 0;
    for (auto record = (*reader)->Read(); record.ok(); record = (*reader)->Read()) {
      total += record->size() + 16;  // every record takes 16 bytes of framing
      TW_FUZZ_CHECK(total <= size);
    }
  }
  unlink(path.c_str());
  return 0;
}
