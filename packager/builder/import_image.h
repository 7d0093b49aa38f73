// `docker import` without a daemon: a root filesystem, a directory or a tar
// archive, becomes a one-layer image with no base; its layer, config and
// manifest are blobs of `store`.
//
//   ImportRequest request{.source = "rootfs", .platform = "linux/amd64"};
//   request.changes = {"ENV LANG=C.UTF-8", "CMD [\"bash\"]"};
//   TP_ASSIGN_OR_RETURN(BuiltImage image, ImportImage(request, store));
//   // then ExportImage / ImageStore::Tag as for a Dockerfile build
//
// The layer:
// - a directory: everything under it, as `tar -C DIR -c .` run as root would
//   archive it: permission bits (setuid included) and numeric owners as on
//   disk, symlinks kept as written (never followed), hardlinks kept.
// - a tar archive (plain, gzip, bzip2, xz or zstd, recognised by content):
//   its members under "/" with their bits, numeric owners and links, through
//   ADD's extraction (layer_entry.h): a leading '/' is dropped, as tar does; a
//   member that climbs out of the root ("../"), passes through a symlink
//   member or is a hardlink to something outside is refused; members are
//   staged under `staging_dir` within unpack::ExtractLimits.
// Either way devices, fifos and sockets are refused (a container gets /dev
// from its runtime), naming the path. Mtimes: kept, or clamped to
// SOURCE_DATE_EPOCH when set (layer_options.h), so the same input and epoch
// give the same digest.
//
// The config: `platform`'s os/architecture/variant, `created` (config,
// history, annotation) SOURCE_DATE_EPOCH else 1970, nothing else but what
// `changes` set: each a Dockerfile instruction Docker allows in --change
// (dockerfile/change_instruction.h), variables expanded against the Env so
// far, applied in order as a build applies it (stage_config.h).
//
// Errors: InvalidArgument for a bad change ("--change \"TEXT\": ..."), a bad
// platform, a source that is neither a directory nor a tar archive, and the
// layer writer's refusals (naming the member or path); NotFound for a missing
// source; ResourceExhausted past the extraction caps; I/O errors naming the
// path. All prefixed "importing SOURCE: ". Not thread-safe per store.
#ifndef TRAINPKG_PACKAGER_BUILDER_IMPORT_IMAGE_H_
#define TRAINPKG_PACKAGER_BUILDER_IMPORT_IMAGE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/builder.h"
#include "packager/unpack/extract_limits.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

struct ImportRequest {
  std::filesystem::path source;      // a directory or a tar archive
  std::vector<std::string> changes;  // --change instructions, applied in order
  std::string platform;              // "os/arch[/variant]"; REQUIRES: non-empty
  std::optional<int64_t> source_date_epoch;
  int threads = 2;                                         // compression threads
  LayerCompression compression = LayerCompression::kGzip;  // or kZstd, kNone
  std::optional<int> compression_level;  // SetCompressionLevel's ranges; nullopt: default
  // Where an archive's members are staged while the layer is written; "":
  // $TMPDIR, else /tmp.
  std::filesystem::path staging_dir;
  unpack::ExtractLimits extract_limits = {};
  // Steps as a build reports them: "IMPORT SOURCE" (then done, with the
  // layer written), then each change.
  std::function<void(const BuildStep&)> progress;
};

absl::StatusOr<BuiltImage> ImportImage(const ImportRequest& request, const oci::Layout& store);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_IMPORT_IMAGE_H_
