#include "trainer_runtime/data/internal/read_maybe_gzipped.h"

#include <zlib.h>

#include <cerrno>
#include <memory>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::data::internal {

absl::StatusOr<std::string> ReadMaybeGzipped(const std::filesystem::path& path,
                                             uint64_t max_bytes) {
  errno = 0;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), &gzclose);
  if (file == nullptr) {
    return base::ErrnoToStatus(errno == 0 ? ENOMEM : errno,
                               fmt::format("opening {}", path.string()));
  }
  gzbuffer(file.get(), 1 << 17);
  std::string out;
  char chunk[1 << 16];
  while (true) {
    const int n = gzread(file.get(), chunk, sizeof(chunk));
    if (n < 0) {
      int err = 0;
      const char* what = gzerror(file.get(), &err);
      if (err == Z_ERRNO)
        return base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
      if (err == Z_BUF_ERROR) {
        return absl::DataLossError(
            fmt::format("{}: gzip data ends early (truncated file)", path.string()));
      }
      return absl::DataLossError(fmt::format("{}: corrupt gzip data: {}", path.string(), what));
    }
    if (n == 0) break;
    out.append(chunk, static_cast<size_t>(n));
    if (out.size() > max_bytes) break;
  }
  return out;
}

}  // namespace trainpkg::data::internal
