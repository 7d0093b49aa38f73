// An oci-layout directory (image-spec image-layout.md): `oci-layout`,
// `index.json` (tags as org.opencontainers.image.ref.name annotations) and
// `blobs/<alg>/<hex>`.
//
//   TP_ASSIGN_OR_RETURN(Layout layout, Layout::Create("out"));
//   TP_ASSIGN_OR_RETURN(Descriptor config, layout.WriteBlob(config_bytes, kOciImageConfig));
//   ...
//   TP_RETURN_IF_ERROR(layout.Tag(manifest_descriptor, "latest"));
//   TP_ASSIGN_OR_RETURN(LayoutImage image, layout.ReadImage("latest"));
//
// A layout may reference blobs it does not hold (a "shallow" image whose
// base layers live in a registry): nothing fails on open, ReadImage and
// MissingBlobs say which are absent, and only reading an absent blob fails.
//
// Errors: NotFound for an absent blob, tag or layout; DataLoss when stored
// content does not match its digest or descriptor; InvalidArgument for
// malformed JSON (naming the file and the JSON path) or a bad tag;
// FailedPrecondition for an unsupported imageLayoutVersion; errno-derived
// codes for I/O, naming the path.
//
// Thread safety: a Layout is an immutable handle (copyable). Blob reads and
// writes are safe from any number of threads and processes (temporary file +
// rename). Tag and WriteIndex read-modify-write index.json: callers must not
// run them concurrently on one directory.
#ifndef TRAINPKG_REGISTRY_OCI_LAYOUT_H_
#define TRAINPKG_REGISTRY_OCI_LAYOUT_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/blob_writer.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/platform.h"

namespace trainpkg::oci {

// One tagged entry of index.json.
struct LayoutTag {
  std::string tag{};
  Descriptor descriptor{};  // as in index.json, ref.name annotation included
};

// An image read from a layout. `config` is absent when its blob is, or when
// the config is not an image config (an artifact); every
// referenced blob not present is listed in `missing_blobs` (config first,
// then layers in order).
struct LayoutImage {
  Descriptor descriptor{};       // the manifest's, as index.json (or the index) has it
  std::string manifest_bytes{};  // exactly as stored
  ImageManifest manifest{};
  std::optional<ImageConfig> config{};
  std::vector<Descriptor> missing_blobs{};
};

class Layout {
 public:
  // Opens the layout at `root`, creating the directory, `oci-layout`,
  // `blobs/` and an empty `index.json` where missing.
  static absl::StatusOr<Layout> Create(const std::filesystem::path& root);
  // Opens an existing layout: NotFound without `oci-layout`,
  // FailedPrecondition for a version other than 1.x.
  static absl::StatusOr<Layout> Open(const std::filesystem::path& root);

  const std::filesystem::path& root() const { return root_; }
  // blobs/<alg>/<hex>. REQUIRES: !digest.empty().
  std::filesystem::path BlobPath(const Digest& digest) const;
  bool HasBlob(const Digest& digest) const;

  // Stores `content` (sha256) unless a blob of that digest is already there.
  absl::StatusOr<Descriptor> WriteBlob(std::string_view content, std::string_view media_type) const;
  // Stores `content` after checking it is `expected` (digest and size):
  // DataLoss and nothing stored otherwise.
  absl::Status WriteBlob(const Descriptor& expected, std::string_view content) const;
  // A streaming writer for large blobs (see blob_writer.h).
  absl::StatusOr<BlobWriter> NewBlobWriter(
      DigestAlgorithm algorithm = DigestAlgorithm::kSha256) const;

  // The blob's bytes, checked against the digest (and the size).
  absl::StatusOr<std::string> ReadBlob(const Digest& digest) const;
  absl::StatusOr<std::string> ReadBlob(const Descriptor& descriptor) const;

  absl::StatusOr<ImageIndex> ReadIndex() const;
  // Writes index.json atomically (canonical bytes).
  absl::Status WriteIndex(const ImageIndex& index) const;

  // index.json entries that carry a ref.name, in index order.
  absl::StatusOr<std::vector<LayoutTag>> ListTags() const;
  // The descriptor tagged `tag`; for an empty tag the only entry of
  // index.json (InvalidArgument when there are several, listing the tags).
  absl::StatusOr<Descriptor> Resolve(std::string_view tag) const;
  // Points `tag` at `descriptor` (a manifest or index, whose blob need not be
  // present yet): entries tagged `tag` are replaced, others kept. When
  // `tag` already points at `descriptor`, index.json is not rewritten.
  absl::Status Tag(const Descriptor& descriptor, std::string_view tag) const;

  // Blobs reachable from `root` (a manifest or an index, recursively) that the
  // layout does not hold, in walk order. Existence only: contents are checked
  // when read. Fails only when a present manifest or index cannot be read.
  absl::StatusOr<std::vector<Descriptor>> MissingBlobs(const Descriptor& root) const;

  // The image tagged `tag` (empty: the only one). When the tag names an
  // index, the manifest for `platform` is taken (InvalidArgument when no
  // platform is given). NotFound when the manifest blob itself is absent.
  absl::StatusOr<LayoutImage> ReadImage(
      std::string_view tag, const std::optional<Platform>& platform = std::nullopt) const;

 private:
  explicit Layout(std::filesystem::path root) : root_(std::move(root)) {}
  absl::StatusOr<std::string> ReadVerified(const Digest& digest, std::optional<int64_t> size) const;

  std::filesystem::path root_;
};

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_LAYOUT_H_
