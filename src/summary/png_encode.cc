#include "summary/png_encode.h"

#include <png.h>

#include <csetjmp>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tw::summary {
namespace {

void AppendToString(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}

void NoFlush(png_structp) {}

int ColorType(int channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3: return PNG_COLOR_TYPE_RGB;
    default: return PNG_COLOR_TYPE_RGB_ALPHA;
  }
}

}  // namespace

absl::StatusOr<std::string> EncodePng(const uint8_t* pixels, int width, int height, int channels) {
  if (channels < 1 || channels > 4) {
    return absl::InvalidArgumentError(absl::StrCat("PNG images have 1 to 4 channels, not ", channels));
  }
  if (width <= 0 || height <= 0) {
    // libpng refuses empty images; TensorFlow's encoder fails on them too.
    return absl::InvalidArgumentError(absl::StrCat("cannot PNG-encode an empty ", height, "x", width, " image"));
  }
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) return absl::InternalError("png_create_write_struct failed");
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return absl::InternalError("png_create_info_struct failed");
  }
  std::vector<png_bytep> rows(height);
  const size_t stride = static_cast<size_t>(width) * channels;
  for (int y = 0; y < height; ++y) rows[y] = const_cast<png_bytep>(pixels + y * stride);
  // libpng reports errors by longjmp; nothing with a destructor is created after this point.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return absl::InternalError("PNG encoding failed");
  }
  png_set_write_fn(png, &out, AppendToString, NoFlush);
  png_set_IHDR(png, info, width, height, 8, ColorType(channels), PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace tw::summary
