// Fuzz target: any bytes as an IDX file (MNIST's format), in memory and as a
// file (which may be gzip-compressed). Must never crash, hang or trip a
// sanitizer; an array that parses has as many values as its dimensions say.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "tests/fuzz/fuzz_scratch.h"
#include "trainer_runtime/data/idx_reader.h"

namespace {

void CheckArray(const trainpkg::data::IdxArray& array) {
  // A zero dimension empties the array whatever the others are, even when
  // the dimensions before it multiply past 2^64.
  for (int64_t d : array.dims) {
    TP_CHECK(d >= 0, "negative dimension {}", d);
    if (d == 0) {
      TP_CHECK(array.values.empty(), "a dimension is 0, yet the array has {} values",
               array.values.size());
      return;
    }
  }
  uint64_t count = 1;
  for (int64_t d : array.dims) {
    TP_CHECK(!__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count),
             "the dimensions' product overflows, yet the array parsed with {} values",
             array.values.size());
  }
  TP_CHECK(count == array.values.size(), "dimensions hold {} values, the array has {}", count,
           array.values.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::data;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<IdxArray> array = ParseIdx(bytes, "fuzz.idx");
  if (array.ok()) CheckArray(*array);
  trainpkg::base::TempDir dir = trainpkg::fuzz::ScratchDir();
  trainpkg::fuzz::WriteScratchFile(dir.path() / "images-idx3-ubyte.gz", bytes);
  absl::StatusOr<IdxArray> read = ReadIdx(dir.path() / "images-idx3-ubyte.gz");
  if (read.ok()) CheckArray(*read);
  return 0;
}
