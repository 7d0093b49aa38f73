#include "packager/layer/layer_options.h"

#include <algorithm>
#include <limits>

#include "fmt/format.h"

namespace trainpkg::packager {

int64_t LayerMtime(int64_t file_mtime, const LayerOptions& options) {
  if (options.mtime_policy == MtimePolicy::kSet) {
    return std::max<int64_t>(0, options.source_date_epoch.value_or(0));
  }
  // Clamped, not replaced (the SOURCE_DATE_EPOCH specification's "timestamp
  // clamping", as tar --clamp-mtime does): files older than the epoch keep
  // their times, and only files newer than the sources, made by the build
  // itself, get it.
  const int64_t bound = options.source_date_epoch.has_value()
                            ? std::max<int64_t>(0, *options.source_date_epoch)
                            : std::numeric_limits<int64_t>::max();
  return std::clamp<int64_t>(file_mtime, 0, bound);
}

absl::Status SetCompressionLevel(int level, LayerOptions* options) {
  switch (options->compression) {
    case LayerCompression::kGzip:
      if (level < 1 || level > 12) {
        return absl::InvalidArgumentError(
            fmt::format("gzip compression level {} is outside 1..12", level));
      }
      options->gzip_level = level;
      return absl::OkStatus();
    case LayerCompression::kZstd:
      if (level < 1 || level > 19) {
        return absl::InvalidArgumentError(
            fmt::format("zstd compression level {} is outside 1..19", level));
      }
      options->zstd_level = level;
      return absl::OkStatus();
    case LayerCompression::kNone:
      break;
  }
  return absl::InvalidArgumentError("an uncompressed layer has no compression level");
}

}  // namespace trainpkg::packager
