#include "checkpoint/bundle_strings.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/crc32c.h"

namespace tw::checkpoint {
namespace {

// Little-endian bytes of v (the checksums are over the host's, which TF assumes little).
template <typename T>
uint32_t ExtendLittle(uint32_t crc, T v) {
  char b[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return crc32c::Extend(crc, b, sizeof(T));
}

uint32_t ExtendLength(uint32_t crc, uint64_t length) {
  // TensorFlow checksums lengths that fit as uint32 (what older checkpoints held).
  return length <= UINT32_MAX ? ExtendLittle(crc, static_cast<uint32_t>(length)) : ExtendLittle(crc, length);
}

}  // namespace

std::string EncodeBundleStrings(const Tensor& t, uint32_t* crc) {
  const std::string* s = t.data<std::string>();
  const int64_t n = t.NumElements();
  std::string out;
  *crc = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = s[i].size();
    *crc = ExtendLength(*crc, v);
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  const uint32_t length_checksum = crc32c::Mask(*crc);
  *crc = ExtendLittle(*crc, length_checksum);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((length_checksum >> (8 * i)) & 0xff));
  for (int64_t i = 0; i < n; ++i) {
    out.append(s[i]);
    *crc = crc32c::Extend(*crc, s[i].data(), s[i].size());
  }
  return out;
}

absl::Status DecodeBundleStrings(absl::string_view data, uint32_t masked_crc, const std::string& what,
                                 Tensor* t) {
  auto corrupt = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(what, ": string tensor data ", why));
  };
  const int64_t n = t->NumElements();
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  size_t pos = 0;
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= data.size() || shift > 63) return corrupt(absl::StrCat("is truncated in the length of element ", i));
      const uint8_t b = static_cast<uint8_t>(data[pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    lengths[i] = v;
    crc = ExtendLength(crc, v);
    total += v;  // Each length is at most data.size(), so the sum cannot wrap before this check.
    if (total > data.size()) return corrupt(absl::StrCat("gives element ", i, " a length of ", v, " bytes"));
  }
  if (data.size() - pos < 4) return corrupt("is truncated before the lengths' checksum");
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(static_cast<uint8_t>(data[pos + i])) << (8 * i);
  pos += 4;
  if (stored != crc32c::Mask(crc)) return corrupt("fails the checksum of its lengths");
  crc = ExtendLittle(crc, stored);
  if (total != data.size() - pos) {
    return corrupt(absl::StrCat("holds ", data.size() - pos, " bytes of strings, but the lengths add up to ", total));
  }
  std::string* out = t->data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(data.data() + pos, lengths[i]);
    crc = crc32c::Extend(crc, out[i].data(), out[i].size());
    pos += lengths[i];
  }
  if (crc32c::Mask(crc) != masked_crc) return corrupt("fails its checksum");
  return absl::OkStatus();
}

}  // namespace tw::checkpoint
