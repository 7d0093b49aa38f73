// Fuzz target: any bytes as a TFRecord file (length, masked CRC-32C, data,
// CRC), read record by record. Must never crash, hang, trip a sanitizer or
// allocate for a record the file cannot hold; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_scratch.h"
#include "trainer_runtime/data/tfrecord_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  trainpkg::base::TempDir dir = trainpkg::fuzz::ScratchDir();
  trainpkg::fuzz::WriteScratchFile(dir.path() / "data.tfrecord", bytes);
  (void)trainpkg::data::ReadTfRecordFile(dir.path() / "data.tfrecord");
  return 0;
}
