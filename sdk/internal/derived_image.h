// What the images the sdk derives from a Python executor share: the
// executor resolved into the local image store and checked for python3, and
// a build by the packager (the builder `trainpkg build` runs) of a generated
// Dockerfile FROM it, stored under a tag of the caller's. Used by
// pythonPackageSpec pools (python_package_image.h) and gcloud's
// autopackaging (sdk/autopackage.h).
#ifndef TRAINPKG_SDK_INTERNAL_DERIVED_IMAGE_H_
#define TRAINPKG_SDK_INTERNAL_DERIVED_IMAGE_H_

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobspec/image_uri.h"
#include "packager/builder/store_lock.h"
#include "packager/unpack/rootfs_cache.h"
#include "sdk/internal/image_resolver.h"

namespace trainpkg::sdk::internal {

// Resolves `image` with `resolver` (pulling it into the store when
// needed), unpacks it with `rootfs` (cached there; the build's RUN reuses
// it) and checks that a directory of the image's PATH holds python3.
// Errors start with `field`: the resolver's and the unpacker's, and
// FailedPrecondition for an image without python3 (saying what it needs).
absl::StatusOr<ResolvedImage> ResolvePythonExecutor(const ImageResolver& resolver,
                                                    const packager::unpack::RootfsCache& rootfs,
                                                    const jobspec::ImageUri& image,
                                                    std::string_view field);

// Whether the local image store under `home` has `tag`.
bool StoreHasImage(const std::filesystem::path& home, const std::string& tag);

struct DerivedImageBuild {
  std::filesystem::path home;         // job store home: images/, build-cache/, rootfs/
  std::filesystem::path context_dir;  // what COPY reads (.dockerignore applies)
  std::filesystem::path dockerfile;   // FROM an "oci:" reference (no registry is asked)
  std::string tag;                    // stored as
  std::function<void(std::string_view)>
      log;  // steps and RUN output, a line at a time; may be empty
};

// Builds `build.dockerfile` into the store (layers kept uncompressed, as
// `trainpkg build` keeps what it only stores; the base's layers copied in so
// that the image is whole) and tags it. The builder's errors: a failed RUN
// names the step, its exit code and the tail of its output, and leaves no
// layer cached.
absl::Status BuildDerivedImage(const DerivedImageBuild& build);

// The store's gc.lock held shared (packager/builder/store_lock.h), taken
// before a derived image's context is staged and kept until it is tagged: a
// `trainpkg system prune` waits for the staging directory and the blobs not
// yet referenced by a tag.
absl::StatusOr<packager::builder::StoreLock> HoldStoreForBuild(const std::filesystem::path& home);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_DERIVED_IMAGE_H_
