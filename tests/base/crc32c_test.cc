#include "base/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trainpkg::base {
namespace {

std::string Bytes(std::vector<uint8_t> v) { return std::string(v.begin(), v.end()); }

TEST(Crc32cTest, CheckValue) { EXPECT_EQ(Crc32c("123456789"), 0xE3069283u); }

TEST(Crc32cTest, EmptyIsZero) { EXPECT_EQ(Crc32c(""), 0u); }

// RFC 3720 appendix B.4.
TEST(Crc32cTest, Rfc3720Vectors) {
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::vector<uint8_t> up(32), down(32);
  for (int i = 0; i < 32; ++i) {
    up[i] = static_cast<uint8_t>(i);
    down[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(Crc32c(Bytes(up)), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(Bytes(down)), 0x113FDB5Cu);
  // The iSCSI read-command PDU of the same appendix.
  const std::vector<uint8_t> pdu = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                    0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Crc32c(Bytes(pdu)), 0xD9963A56u);
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  const uint32_t whole = Crc32c(data);
  for (size_t split : {0u, 1u, 7u, 8u, 9u, 500u, 999u, 1000u}) {
    const uint32_t a = Crc32c(std::string_view(data).substr(0, split));
    EXPECT_EQ(Crc32cExtend(a, data.data() + split, data.size() - split), whole) << split;
  }
}

// Every length and alignment, hardware path (when present) against portable.
TEST(Crc32cTest, HardwareMatchesPortable) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>((i * 131) ^ (i >> 3)));
  for (size_t off = 0; off < 9; ++off) {
    for (size_t n = 0; off + n <= data.size(); n += 7) {
      EXPECT_EQ(Crc32cExtend(0x1234u, data.data() + off, n),
                Crc32cExtendPortable(0x1234u, data.data() + off, n))
          << "off " << off << " n " << n;
    }
  }
  RecordProperty("hardware", Crc32cUsesHardware() ? "sse4.2" : "portable");
}

TEST(Crc32cTest, MaskedValues) {
  // ((0xE3069283 >> 15) | (0xE3069283 << 17)) + 0xa282ead8, mod 2^32.
  EXPECT_EQ(MaskCrc32c(0xE3069283u), 0xC78AB0E5u);
  EXPECT_EQ(MaskedCrc32c("123456789"), 0xC78AB0E5u);
  const uint32_t crc = Crc32c("foo");
  EXPECT_NE(MaskCrc32c(crc), crc);
  EXPECT_NE(MaskCrc32c(MaskCrc32c(crc)), crc);
  EXPECT_EQ(UnmaskCrc32c(MaskCrc32c(crc)), crc);
  EXPECT_EQ(UnmaskCrc32c(UnmaskCrc32c(MaskCrc32c(MaskCrc32c(crc)))), crc);
}

}  // namespace
}  // namespace trainpkg::base
