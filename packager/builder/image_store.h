// The local image store (`docker images`): an oci-layout under the trainpkg
// home ($TRAINPKG_HOME/images) whose tags are normalised references
// ("docker.io/library/trainer:latest"). It also holds the layer cache's
// blobs, so storing a build copies nothing.
//
// Thread safety: Tag and Untag read-modify-write index.json under
// <dir>/index.lock (store_lock.h), so processes may tag at once; List is
// safe anytime.
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
  std::string name;           // the tag in index.json ("docker.io/library/trainer:v1")
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

  // Removes the tag `name` (a normalised reference, as List's images carry
  // it: StoredImage::Name()). NotFound naming it when absent. Blobs stay
  // (store_gc.h collects them).
  absl::Status Untag(std::string_view name) const;

  // Every tagged image, sorted by repository then tag.
  absl::StatusOr<std::vector<StoredImage>> List() const;

  // The images `what` names, as `docker image rm|inspect|tag` take them: a
  // reference (Docker grammar, ":latest" when it has no tag) gives its one
  // tag; an image ID ("sha256:<hex>", or 4+ leading hex digits of it) every
  // tag of that image. NotFound "no such image: WHAT" when none matches;
  // InvalidArgument for an ID prefix that names several images.
  absl::StatusOr<std::vector<StoredImage>> Find(std::string_view what) const;

 private:
  explicit ImageStore(oci::Layout layout) : layout_(std::move(layout)) {}
  oci::Layout layout_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_IMAGE_STORE_H_
