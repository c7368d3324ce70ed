#include "summary/wav_encode.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace tw::summary {
namespace {

void Put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}

void Put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

int16_t ToSample(float x) {
  const float scaled = std::round(x * 32768.0f);
  return static_cast<int16_t>(std::min(std::max(scaled, -32768.0f), 32767.0f));
}

}  // namespace

absl::StatusOr<std::string> EncodeWav(const float* samples, uint64_t sample_rate, uint64_t num_channels,
                                      uint64_t num_frames) {
  if (sample_rate == 0 || sample_rate > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("sample_rate must be in (0, 2^32), got: ", sample_rate));
  }
  if (num_channels == 0 || num_channels > std::numeric_limits<uint16_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("num_channels must be in (0, 2^16), got: ", num_channels));
  }
  const uint64_t data_bytes = num_frames * num_channels * 2;
  if (num_frames > std::numeric_limits<uint32_t>::max() / 2 / num_channels ||
      data_bytes > std::numeric_limits<uint32_t>::max() - 36) {
    return absl::InvalidArgumentError(absl::StrCat("audio of ", num_frames, " frames of ", num_channels,
                                                   " channels is too long for a WAV file"));
  }
  std::string out;
  out.reserve(44 + data_bytes);
  out.append("RIFF");
  Put32(out, static_cast<uint32_t>(36 + data_bytes));
  out.append("WAVEfmt ");
  Put32(out, 16);  // size of the fmt chunk
  Put16(out, 1);   // PCM
  Put16(out, static_cast<uint16_t>(num_channels));
  Put32(out, static_cast<uint32_t>(sample_rate));
  Put32(out, static_cast<uint32_t>(sample_rate * num_channels * 2));  // bytes per second
  Put16(out, static_cast<uint16_t>(num_channels * 2));                // bytes per frame
  Put16(out, 16);                                                     // bits per sample
  out.append("data");
  Put32(out, static_cast<uint32_t>(data_bytes));
  for (uint64_t i = 0; i < num_frames * num_channels; ++i) Put16(out, static_cast<uint16_t>(ToSample(samples[i])));
  return out;
}

}  // namespace tw::summary
