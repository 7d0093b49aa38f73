// Fuzz target: any bytes as a TensorBoard event file, read by the
// dashboard's scalar reader (TFRecord framing, CRC-32C, Event protobufs),
// and the same bytes as one Event in a correctly framed record, so that
// mutations reach the protobuf decoding past the CRCs. Must never crash,
// hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "base/crc32c.h"
#include "sdk/serve/scalar_event_reader.h"

namespace {

std::string Framed(std::string_view payload) {
  char length[8];
  const uint64_t n = payload.size();
  std::memcpy(length, &n, sizeof(length));
  std::string record(length, sizeof(length));
  const uint32_t length_crc = trainpkg::base::MaskedCrc32c(record);
  record.append(reinterpret_cast<const char*>(&length_crc), sizeof(length_crc));
  record.append(payload);
  const uint32_t payload_crc = trainpkg::base::MaskedCrc32c(payload);
  record.append(reinterpret_cast<const char*>(&payload_crc), sizeof(payload_crc));
  return record;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)trainpkg::sdk::serve::ParseScalarEvents(bytes);
  (void)trainpkg::sdk::serve::ParseScalarEvents(Framed(bytes));
  return 0;
}
