// Fuzz target: any bytes as a CSV dataset. The first byte picks the options
// (header, label column by name or index, delimiter); the rest is the text,
// read in memory and, for the gzip path, from a file. Must never crash, hang
// or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_scratch.h"
#include "trainer_runtime/data/csv_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::data;
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  CsvOptions options;
  options.has_header = (mode & 1) != 0;
  if ((mode & 2) != 0 && options.has_header) options.label_name = "label";
  options.label_column = static_cast<int>((mode >> 2) & 7) - 4;  // -4..3
  options.delimiter = (mode & 0x20) != 0 ? ';' : ',';
  (void)ParseCsv(text, "fuzz.csv", options);
  if ((mode & 0x40) != 0) {
    trainpkg::base::TempDir dir = trainpkg::fuzz::ScratchDir();
    trainpkg::fuzz::WriteScratchFile(dir.path() / "data.csv.gz", text);
    (void)ReadCsv(dir.path() / "data.csv.gz", options);
  }
  return 0;
}
