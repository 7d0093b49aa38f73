// The local image store (`docker images`): an oci-layout under the trainpkg
// home ($TRAINPKG_HOME/images) whose tags are normalised references
// ("docker.io/library/trainer:latest"). It also holds the layer cache's
// blobs, so storing a build copies nothing.
//
// Thread safety: Tag read-modify-writes index.json; do not tag from several
// processes at once (List is safe anytime).
#ifndef TRAINPKG_PACKAGER_BUILDER_IMAGE_STORE_H_
#define TRAINPKG_PACKAGER_BUILDER_IMAGE_STORE_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

struct StoredImage {
  std::string repository;  // as `docker images` shows it ("trainer", "gcr.io/p/app")
  std::string tag;
  oci::Digest manifest_digest;
  oci::Digest config_digest;  // the image ID
  std::string created;        // the config's, RFC 3339
  int64_t size = 0;           // config + layers present in the store, bytes
};

class ImageStore {
 public:
  // Opens (creating) `dir`.
  static absl::StatusOr<ImageStore> Open(const std::filesystem::path& dir);

  const oci::Layout& layout() const { return layout_; }

  // Tags `manifest` (already in the layout) as `reference` (Docker grammar;
  // ":latest" when it has no tag; InvalidArgument for a digest reference).
  // Returns the normalised reference.
  absl::StatusOr<std::string> Tag(const oci::Descriptor& manifest,
                                  std::string_view reference) const;

  // Every tagged image, sorted by repository then tag.
  absl::StatusOr<std::vector<StoredImage>> List() const;

 private:
  explicit ImageStore(oci::Layout layout) : layout_(std::move(layout)) {}
  oci::Layout layout_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_IMAGE_STORE_H_
