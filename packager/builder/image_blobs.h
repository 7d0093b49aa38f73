// The last step of every way an image is made here (a Dockerfile build,
// `--bundle-libs`, `trainpkg import`): its config and manifest written to
// the store as blobs.
#ifndef TRAINPKG_PACKAGER_BUILDER_IMAGE_BLOBS_H_
#define TRAINPKG_PACKAGER_BUILDER_IMAGE_BLOBS_H_

#include "absl/status/status.h"
#include "packager/builder/builder.h"
#include "registry/oci/annotations.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

// Validates built->config and writes it, then points built->manifest (its
// layers already set) at it, annotates it with `provenance`, validates and
// writes it: fills config_descriptor, manifest_bytes and
// manifest_descriptor. The validators' InvalidArgument, or the store's
// error; nothing but blobs is written.
absl::Status WriteConfigAndManifest(const oci::ImageProvenance& provenance,
                                    const oci::Layout& store, BuiltImage* built);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_IMAGE_BLOBS_H_
