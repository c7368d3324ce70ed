// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI, ext4 and
// TensorFlow's checkpoints. Debian's libabsl 20220623 has no absl/crc, so this is our
// own: slicing-by-8 tables, or the SSE4.2 instruction when the build targets it.
#ifndef TENSORWEAVE_SRC_CORE_CRC32C_H_
#define TENSORWEAVE_SRC_CORE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tw::crc32c {

// The CRC of `crc`'s data followed by data[0, n). Extend(0, ...) starts a new CRC.
uint32_t Extend(uint32_t crc, const void* data, size_t n);
inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// TensorFlow (and LevelDB) store CRCs "masked" (rotated and offset), so that the CRC of
// data that itself holds CRCs is not degenerate: checkpoint entries and TFRecords.
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

// The table-driven version, always compiled (tests compare it with Extend).
uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n);

}  // namespace tw::crc32c

#endif  // TENSORWEAVE_SRC_CORE_CRC32C_H_
