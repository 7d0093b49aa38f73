#include "trainer_runtime/train/internal/tfrecord.h"

#include <cstdint>

#include "base/crc32c.h"

namespace trainpkg::train::internal {
namespace {

void PutLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::string FrameTfRecord(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 16);
  // TFRecord framing: the length (uint64), the masked CRC32C of those 8 bytes,
  // the data, the masked CRC32C of the data; all little-endian.
  PutLittleEndian(out, payload.size(), 8);
  PutLittleEndian(out, base::MaskedCrc32c(out), 4);
  out += payload;
  PutLittleEndian(out, base::MaskedCrc32c(payload), 4);
  return out;
}

}  // namespace trainpkg::train::internal
