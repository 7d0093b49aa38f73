// How a layer is written: timestamps and compression.
#ifndef TRAINPKG_PACKAGER_LAYER_LAYER_OPTIONS_H_
#define TRAINPKG_PACKAGER_LAYER_LAYER_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>

#include "absl/status/status.h"
#include "packager/unpack/extract_limits.h"

namespace trainpkg::packager {

// What an entry's mtime becomes, given epoch E = source_date_epoch.
enum class MtimePolicy {
  // BuildKit's rule. E set: min(file mtime, E), like `tar --clamp-mtime`,
  // umoci and BuildKit's rewrite-timestamp (files newer than E, a fresh
  // checkout, get E). E unset: the file's own mtime, as Docker's COPY keeps
  // it, so the .pyc files of a copied Python tree stay valid (and the layer
  // differs between two checkouts of the same sources; see
  // docs/adr/2026-11-27-copy-keeps-source-mtimes.md). Never below 0.
  kClamp,
  // E for every entry, whatever the file says (`tar --mtime=@E`, ko); 0 when
  // E is unset.
  kSet,
};

enum class LayerCompression {
  kGzip,  // application/vnd.oci.image.layer.v1.tar+gzip
  kNone,  // application/vnd.oci.image.layer.v1.tar (digest == diff_id)
  kZstd,  // application/vnd.oci.image.layer.v1.tar+zstd (one frame, internal/zstd_writer.h)
};

struct LayerOptions {
  // SOURCE_DATE_EPOCH (see source_date_epoch.h): see MtimePolicy.
  std::optional<int64_t> source_date_epoch;
  MtimePolicy mtime_policy = MtimePolicy::kClamp;

  LayerCompression compression = LayerCompression::kGzip;
  // libdeflate level 0..12. 6 by measurement (docs/adr/2026-11-22-layer-compression.md).
  int gzip_level = 6;
  // Bytes of tar per gzip member. Part of the output's identity: the same
  // input, level and block size give the same digest.
  size_t gzip_block_size = size_t{1} << 20;
  // zstd level 1..19 (kZstd). 3 is zstd's default.
  int zstd_level = 3;
  // Compression threads (>= 1). Never changes the output bytes.
  int threads = 2;
  // Where Extract entries stage the archives' member contents while the
  // layer is written (a private directory is made inside and removed after).
  // Empty: $TMPDIR, else /tmp. Never changes the output bytes.
  std::filesystem::path staging_dir = {};
  // Caps on what one Extract entry (ADD of a local archive) may stage:
  // members and uncompressed bytes, the bytes also bounded by the staging
  // filesystem's free space less a reserve (as for unpacking image layers).
  unpack::ExtractLimits extract_limits = {};
};

// The mtime an entry gets under `options` when its source file's mtime is
// `file_mtime` (seconds). Entries no file stands behind (parents the layer
// adds, heredoc files, symlink entries, whiteouts) get
// LayerMtime(source_date_epoch or 0): E, else 0.
int64_t LayerMtime(int64_t file_mtime, const LayerOptions& options);

// Sets the level of `options->compression` (gzip: libdeflate 1..12; zstd:
// 1..19), the knob a user turns for speed against size. InvalidArgument,
// naming the range, when `level` is outside it or the layer is uncompressed.
absl::Status SetCompressionLevel(int level, LayerOptions* options);

}  // namespace trainpkg::packager

#endif  // TRAINPKG_PACKAGER_LAYER_LAYER_OPTIONS_H_
