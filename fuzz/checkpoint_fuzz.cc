// Checkpoint reading: the input is written to a file, opened and every tensor read.
// Damage must give DataLoss (or another clean error), never a crash or a huge allocation.
#include <unistd.h>

#include <fstream>

#include "fuzz/fuzz_util.h"
#include "checkpoint/checkpoint_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tw_fuzz_checkpoint." + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto reader = tw::checkpoint::CheckpointReader::Open(path);
  if (reader.ok()) {
    for (const auto& entry : (*reader)->entries()) {
      auto tensor = (*reader)->Read(entry);
      // A tensor read is never bigger than the file it came from.
      if (tensor.ok() && tensor->dtype() != tw::DType::kResource) TW_FUZZ_CHECK(tensor->TotalBytes() <= size);
    }
  }
  unlink(path.c_str());
  return 0;
}
