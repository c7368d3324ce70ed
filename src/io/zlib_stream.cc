#include "io/zlib_stream.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tw::io {
namespace {

constexpr size_t kChunk = 1 << 16;

int WindowBits(ZlibFormat format) { return format == ZlibFormat::kGzip ? MAX_WBITS + 16 : MAX_WBITS; }

std::string ZlibMessage(const z_stream& z, int code) {
  return absl::StrCat("zlib error ", code, z.msg != nullptr ? absl::StrCat(" (", z.msg, ")") : "");
}

}  // namespace

struct ZlibWriter::State {
  z_stream z{};
  bool finished = false;
};

struct ZlibReader::State {
  z_stream z{};
  char in[kChunk];
  bool ended = false;  // the deflate stream's end was read
};

ZlibWriter::ZlibWriter(FILE* file) : file_(file), state_(std::make_unique<State>()) {}

absl::StatusOr<std::unique_ptr<ZlibWriter>> ZlibWriter::Create(FILE* file, ZlibFormat format) {
  std::unique_ptr<ZlibWriter> w(new ZlibWriter(file));
  const int code = deflateInit2(&w->state_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, WindowBits(format), 8,
                                Z_DEFAULT_STRATEGY);
  if (code != Z_OK) return absl::InternalError(ZlibMessage(w->state_->z, code));
  return w;
}

ZlibWriter::~ZlibWriter() { deflateEnd(&state_->z); }

std::string ZlibWriter::Deflate(absl::string_view data, int flush) {
  if (state_->finished) return "the compressed stream is already finished";
  z_stream& z = state_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  char out[kChunk];
  do {
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = sizeof(out);
    const int code = deflate(&z, flush);
    if (code == Z_STREAM_ERROR) return ZlibMessage(z, code);
    const size_t n = sizeof(out) - z.avail_out;
    if (n > 0 && std::fwrite(out, 1, n, file_) != n) return std::strerror(errno);
  } while (z.avail_out == 0 || z.avail_in > 0);
  if (flush == Z_FINISH) state_->finished = true;
  return "";
}

std::string ZlibWriter::Write(absl::string_view data) { return Deflate(data, Z_NO_FLUSH); }

std::string ZlibWriter::Flush() {
  if (state_->finished) return "";
  std::string e = Deflate("", Z_SYNC_FLUSH);
  if (e.empty() && std::fflush(file_) != 0) e = std::strerror(errno);
  return e;
}

std::string ZlibWriter::Finish() { return state_->finished ? "" : Deflate("", Z_FINISH); }

ZlibReader::ZlibReader(FILE* file) : file_(file), state_(std::make_unique<State>()) {}

absl::StatusOr<std::unique_ptr<ZlibReader>> ZlibReader::Create(FILE* file, ZlibFormat format) {
  std::unique_ptr<ZlibReader> r(new ZlibReader(file));
  const int code = inflateInit2(&r->state_->z, WindowBits(format));
  if (code != Z_OK) return absl::InternalError(ZlibMessage(r->state_->z, code));
  return r;
}

ZlibReader::~ZlibReader() { inflateEnd(&state_->z); }

size_t ZlibReader::Read(char* out, size_t n) {
  z_stream& z = state_->z;
  z.next_out = reinterpret_cast<Bytef*>(out);
  z.avail_out = static_cast<uInt>(n);
  while (z.avail_out > 0 && !state_->ended && error_.empty()) {
    if (z.avail_in == 0) {
      const size_t got = std::fread(state_->in, 1, sizeof(state_->in), file_);
      if (got == 0) {
        // An empty file is an empty stream; anything else ending early is damage.
        if (z.total_in > 0) error_ = "the compressed stream ends early (the file is truncated)";
        break;
      }
      z.next_in = reinterpret_cast<Bytef*>(state_->in);
      z.avail_in = static_cast<uInt>(got);
    }
    const int code = inflate(&z, Z_NO_FLUSH);
    if (code == Z_STREAM_END) {
      state_->ended = true;
    } else if (code != Z_OK && !(code == Z_BUF_ERROR && z.avail_in == 0)) {
      error_ = ZlibMessage(z, code);
    }
  }
  return n - z.avail_out;
}

}  // namespace tw::io
