// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by TFRecord,
// TensorBoard event files, iSCSI (RFC 3720) and ext4.
//
// Why our own: Debian 12 ships no maintained CRC-32C library for C++, and
// abseil's absl/crc is newer than Debian 12's abseil (20220623). The portable
// path is table-driven (slice-by-8); on x86-64 CPUs with SSE4.2 the `crc32`
// instruction is used, chosen once at run time (__builtin_cpu_supports) and
// compiled through a function target attribute, so the build needs no
// machine-specific flags. Both paths give identical results.
//
// Thread safety: all functions are pure and safe to call concurrently.
#ifndef TRAINPKG_BASE_CRC32C_H_
#define TRAINPKG_BASE_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace trainpkg::base {

// Returns the CRC-32C of data[0, n) continuing from `crc`, the CRC of the
// bytes before them (0 for none): Crc32cExtend(Crc32c(a), b) == Crc32c(a + b).
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n);

// CRC-32C of `data`. Crc32c("123456789") == 0xE3069283.
inline uint32_t Crc32c(std::string_view data) { return Crc32cExtend(0, data.data(), data.size()); }

// The masked form TFRecord and TensorBoard store ("a CRC of a string that
// contains embedded CRCs is not well behaved"): rotate right by 15 and add
// 0xa282ead8.
inline uint32_t MaskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

// Inverse of MaskCrc32c.
inline uint32_t UnmaskCrc32c(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

// MaskCrc32c(Crc32c(data)): the value a TFRecord stores after its payload.
inline uint32_t MaskedCrc32c(std::string_view data) { return MaskCrc32c(Crc32c(data)); }

// True when Crc32cExtend uses the SSE4.2 instruction on this CPU (for tests
// and benchmarks that want to say which path they measured).
bool Crc32cUsesHardware();

// The portable slice-by-8 implementation, always available; exposed so tests
// can check it against the hardware path.
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t n);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_CRC32C_H_
