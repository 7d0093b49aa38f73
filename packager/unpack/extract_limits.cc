#include "packager/unpack/extract_limits.h"

#include <errno.h>
#include <sys/statvfs.h>

#include <algorithm>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::unpack {
namespace {

// Space left free for everything else on the file system: 1 GiB, or 5 %
// of a small one, where 1 GiB could be all there is.
int64_t Reserve(int64_t fs_size) { return std::min(kFreeSpaceReserve, fs_size / 20); }

}  // namespace

int64_t EffectiveMaxBytes(int64_t requested, int64_t fs_size, int64_t fs_available) {
  int64_t cap = requested > 0 ? requested : kHardMaxExtractBytes;
  return std::max<int64_t>(0, std::min(cap, fs_available - Reserve(fs_size)));
}

absl::StatusOr<ExtractBudget> ExtractBudget::ForTarget(const ExtractLimits& limits,
                                                       const std::filesystem::path& target) {
  if (limits.max_entries <= 0 || limits.max_bytes < 0) {
    return absl::InvalidArgumentError(
        fmt::format("extract limits: max_entries must be > 0 and max_bytes >= 0 (got {} and {})",
                    limits.max_entries, limits.max_bytes));
  }
  struct statvfs fs {};
  if (::statvfs(target.c_str(), &fs) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("checking the free space of {}", target.string()));
  }
  const int64_t size = static_cast<int64_t>(fs.f_blocks) * static_cast<int64_t>(fs.f_frsize);
  const int64_t available = static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
  const int64_t cap = EffectiveMaxBytes(limits.max_bytes, size, available);
  const int64_t requested = limits.max_bytes > 0 ? limits.max_bytes : kHardMaxExtractBytes;
  std::string reason =
      cap < requested
          ? fmt::format("the free space of {} ({} bytes) less a reserve of {} bytes", target.string(),
                        available, available - cap)
          : fmt::format("the extraction limit{}",
                        limits.max_bytes > 0 ? "" : " (kHardMaxExtractBytes)");
  return ExtractBudget(limits.max_entries, cap, std::move(reason));
}

absl::Status ExtractBudget::BytesExceeded() const {
  return absl::ResourceExhaustedError(
      fmt::format("the archive expands to more than {} bytes, the cap set by {}; refusing to "
                  "write more (a decompression bomb, or too little free space)",
                  max_bytes_, bytes_reason_));
}

absl::Status ExtractBudget::AddEntry(int64_t declared_bytes) {
  if (++entries_ > max_entries_) {
    return absl::ResourceExhaustedError(
        fmt::format("the archive holds more than {} entries, the cap on entries per extraction",
                    max_entries_));
  }
  const int64_t bytes = std::max<int64_t>(0, declared_bytes);
  if (bytes > max_bytes_ - declared_bytes_) return BytesExceeded();  // no overflow
  declared_bytes_ += bytes;
  return absl::OkStatus();
}

absl::Status ExtractBudget::AddStreamBytes(int64_t n) {
  if (n > max_bytes_ - stream_bytes_) return BytesExceeded();
  stream_bytes_ += n;
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::unpack
