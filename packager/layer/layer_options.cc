#include "packager/layer/layer_options.h"

#include "fmt/format.h"

namespace trainpkg::packager {

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
