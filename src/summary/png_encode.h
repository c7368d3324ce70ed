// PNG encoding of 8-bit images with Debian's libpng, for ImageSummary.
#ifndef TENSORWEAVE_SRC_SUMMARY_PNG_ENCODE_H_
#define TENSORWEAVE_SRC_SUMMARY_PNG_ENCODE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tw::summary {

// `pixels` holds height rows of width * channels bytes; channels 1 (gray), 2 (gray+alpha),
// 3 (RGB) or 4 (RGBA). zlib's default compression.
absl::StatusOr<std::string> EncodePng(const uint8_t* pixels, int width, int height, int channels);

}  // namespace tw::summary

#endif  // TENSORWEAVE_SRC_SUMMARY_PNG_ENCODE_H_
