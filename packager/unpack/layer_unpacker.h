// Applies OCI image layers to a root filesystem directory, safely.
//
//   TP_RETURN_IF_ERROR(UnpackLayers(layout, image.manifest.layers,
//                                   image.config->rootfs.diff_ids, rootfs, {}));
//
// Layers are applied in order (base first) as image-spec layer.md says:
// gzip, zstd or uncompressed tars, each decompressed only as its media type
// says (a bzip2 blob labelled tar+gzip is InvalidArgument); a whiteout
// `.wh.NAME` removes NAME from the lower layers, an opaque marker
// `DIR/.wh..wh..opq` removes every child of DIR that the lower layers hold
// (wherever it sits in the layer); neither marker is written. A directory
// over a directory keeps the children and takes the new attributes; any
// other entry replaces what was there. Regular files, directories, symlinks
// and hardlinks are written with their mode, (optionally) owner and, for
// files and symlinks, mtime; extended attributes are not applied.
//
// Refused (InvalidArgument): absolute entry names and names with a ".."
// component; device nodes, FIFOs and sockets (a training image needs none
// and runc creates /dev itself); hardlinks whose target is not a regular
// file or symlink already in the root; a `.wh.` marker without a name.
// Symlink targets are kept as written, absolute or climbing with "..": like
// Docker and containerd, they mean what they mean inside the container's
// root (chroot semantics; docs/adr/2026-11-27-symlinks-resolve-inside-the-root.md),
// and nothing on the host follows them. Entries are never written through a
// symlink (FailedPrecondition names the link): every parent directory is
// opened with O_NOFOLLOW from the root, so nothing outside `rootfs` is ever
// written or removed, even by layers that plant links.
//
// Caps (UnpackOptions::limits, over all layers of one call): entries and
// uncompressed bytes (both what the tar stream expands to and what its
// headers declare), the bytes also bounded by the free space of the rootfs's
// filesystem less a reserve. Passing one is ResourceExhausted naming the
// layer and the cap; the unpack stops there.
//
// Each blob is checked while it streams: its digest and size against the
// descriptor and the digest of the uncompressed tar against the diff_id
// (DataLoss). Every error names the layer digest and, where one is
// involved, the entry path: "layer sha256:ab12…: entry ../x: …".
// A failed unpack leaves `rootfs` partly written: unpack into a fresh
// directory and discard it on error (RootfsCache does).
//
// Thread safety: independent calls on different roots run in parallel.
#ifndef TRAINPKG_PACKAGER_UNPACK_LAYER_UNPACKER_H_
#define TRAINPKG_PACKAGER_UNPACK_LAYER_UNPACKER_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "packager/unpack/extract_limits.h"
#include "registry/oci/byte_source.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::unpack {

struct UnpackOptions {
  // Give entries the tar's uid/gid (needs CAP_CHOWN); false leaves them
  // owned by the unpacking user.
  bool preserve_ownership = true;
  // Clears the setuid and setgid bits of regular files (RootfsCache does).
  bool clear_set_id_bits = false;
  ExtractLimits limits;
};

// Applies the layer blob at `blob` (described by `layer`, whose
// uncompressed digest is `diff_id`) onto the existing directory `rootfs`.
absl::Status UnpackLayer(const std::filesystem::path& blob, const oci::Descriptor& layer,
                         const oci::Digest& diff_id, const std::filesystem::path& rootfs,
                         const UnpackOptions& options);

// Opens the compressed bytes of a layer blob: a file, or a download that is
// still in progress (registry/blob_feed.h).
using BlobOpener =
    std::function<absl::StatusOr<std::unique_ptr<oci::ByteSource>>(const oci::Descriptor& blob)>;

// The blobs of `layout` (NotFound for one it lacks). `layout` must outlive
// the opener.
BlobOpener LayoutBlobs(const oci::Layout& layout);

// Applies `layers` from `layout`, in order. REQUIRES: diff_ids.size() ==
// layers.size() (InvalidArgument otherwise). NotFound names a layer whose
// blob the layout lacks.
absl::Status UnpackLayers(const oci::Layout& layout, std::span<const oci::Descriptor> layers,
                          std::span<const oci::Digest> diff_ids,
                          const std::filesystem::path& rootfs, const UnpackOptions& options);
// The same, each layer's blob from `open_blob`: a layer can be applied while
// its blob downloads, the digests checked as it streams.
absl::Status UnpackLayers(const BlobOpener& open_blob, std::span<const oci::Descriptor> layers,
                          std::span<const oci::Digest> diff_ids,
                          const std::filesystem::path& rootfs, const UnpackOptions& options);

}  // namespace trainpkg::packager::unpack

#endif  // TRAINPKG_PACKAGER_UNPACK_LAYER_UNPACKER_H_
