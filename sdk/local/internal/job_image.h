// The image of a container-mode replica made ready to run on this machine:
// resolved through the image store (pulled when absent), its rootfs
// unpacked once into the rootfs cache. Used by the local engine for each
// image of a job, and by `trainpkg ssh-replica` for the one replica it runs
// on an SSH backend's host (container_replica_runner.h).
#ifndef TRAINPKG_SDK_LOCAL_INTERNAL_JOB_IMAGE_H_
#define TRAINPKG_SDK_LOCAL_INTERNAL_JOB_IMAGE_H_

#include <filesystem>

#include "absl/status/statusor.h"
#include "packager/unpack/rootfs_cache.h"
#include "registry/oci/image_config.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/replica_plan.h"

namespace trainpkg::sdk::local::internal {

struct JobImage {
  oci::ImageConfig config;
  std::filesystem::path rootfs;
};

// The image of `plan` (REQUIRES: plan.image set). An image being pulled is
// unpacked layer by layer as it downloads (the cold start of a job is about
// the slower of the two, not their sum). Errors name plan.program_field and
// the image.
absl::StatusOr<JobImage> PrepareJobImage(const sdk::internal::ReplicaPlan& plan,
                                         const sdk::internal::ImageResolver& resolver,
                                         packager::unpack::RootfsCache& cache);

}  // namespace trainpkg::sdk::local::internal

#endif  // TRAINPKG_SDK_LOCAL_INTERNAL_JOB_IMAGE_H_
