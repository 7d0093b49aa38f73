// Copies a built image from the store into an output layout and tags it.
//
// The output is self-contained: every blob the manifest names that the store
// or the oci: base's layout holds is copied (hard-linked when both are on one
// filesystem; blobs are immutable). With `lazy_base`, base layers are left
// out and only referenced, as they are for registry bases, whose layers are
// never downloaded: such a layout holds a manifest with absent base blobs
// and base.name/base.digest annotations, which `trainpkg push` mounts from
// the base's repository.
#ifndef TRAINPKG_PACKAGER_BUILDER_IMAGE_EXPORT_H_
#define TRAINPKG_PACKAGER_BUILDER_IMAGE_EXPORT_H_

#include <string_view>

#include "absl/status/status.h"
#include "packager/builder/builder.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

// Copies the blobs `output` lacks (see above) without tagging. REQUIRES:
// `image` was built into `store`. Errors name the blob and path.
absl::Status CopyImageBlobs(const BuiltImage& image, const oci::Layout& store,
                            const oci::Layout& output, bool lazy_base);

// CopyImageBlobs, then tags the manifest `tag` in `output`.
absl::Status ExportImage(const BuiltImage& image, const oci::Layout& store,
                         const oci::Layout& output, std::string_view tag, bool lazy_base);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_IMAGE_EXPORT_H_
