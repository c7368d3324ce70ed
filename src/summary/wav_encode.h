// WAV encoding (16-bit little-endian PCM) for AudioSummaryV2: samples in [-1, 1] scale by
// 2^15, round, and clamp to int16, as TensorFlow's encoder does, so the bytes match.
#ifndef TENSORWEAVE_SRC_SUMMARY_WAV_ENCODE_H_
#define TENSORWEAVE_SRC_SUMMARY_WAV_ENCODE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tw::summary {

// `samples` holds num_frames frames of num_channels interleaved floats.
absl::StatusOr<std::string> EncodeWav(const float* samples, uint64_t sample_rate, uint64_t num_channels,
                                      uint64_t num_frames);

}  // namespace tw::summary

#endif  // TENSORWEAVE_SRC_SUMMARY_WAV_ENCODE_H_
