// For fuzz targets whose parser reads files: a fresh scratch directory per
// input (removed when the input is done) and a way to put the input there.
#ifndef TRAINPKG_TESTS_FUZZ_FUZZ_SCRATCH_H_
#define TRAINPKG_TESTS_FUZZ_FUZZ_SCRATCH_H_

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "base/temp_dir.h"

namespace trainpkg::fuzz {

// A new empty directory under $TMPDIR; aborts when none can be made (the
// fuzz run is then meaningless).
inline base::TempDir ScratchDir() {
  absl::StatusOr<base::TempDir> dir = base::TempDir::Create("trainpkg-fuzz-");
  if (!dir.ok()) {
    std::fprintf(stderr, "fuzz scratch dir: %s\n", dir.status().ToString().c_str());
    std::abort();
  }
  return std::move(*dir);
}

// Writes `bytes` to `path` (creating or truncating it).
inline void WriteScratchFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "fuzz scratch file %s: write failed\n", path.c_str());
    std::abort();
  }
}

}  // namespace trainpkg::fuzz

#endif  // TRAINPKG_TESTS_FUZZ_FUZZ_SCRATCH_H_
