#include "sdk/local/internal/job_image.h"

#include "absl/strings/str_cat.h"
#include "base/status_context.h"
#include "base/status_macros.h"

namespace trainpkg::sdk::local::internal {

absl::StatusOr<JobImage> PrepareJobImage(const sdk::internal::ReplicaPlan& plan,
                                         const sdk::internal::ImageResolver& resolver,
                                         packager::unpack::RootfsCache& cache) {
  const std::string unpacking =
      absl::StrCat(plan.program_field, ": unpacking \"", plan.image->ToString(), "\"");
  TP_ASSIGN_OR_RETURN_WITH_CONTEXT(sdk::internal::StreamingImage streaming,
                                   resolver.ResolveStreaming(*plan.image), plan.program_field);
  if (streaming.pull == nullptr) {
    const sdk::internal::ResolvedImage& resolved = streaming.resolved;
    TP_ASSIGN_OR_RETURN_WITH_CONTEXT(std::filesystem::path rootfs,
                                     cache.Get(resolved.layout, resolved.image), unpacking);
    return JobImage{*resolved.image.config, std::move(rootfs)};
  }
  // The image is being pulled: each layer is unpacked as it downloads, its
  // digests checked as it streams.
  absl::StatusOr<std::filesystem::path> rootfs =
      cache.Get(streaming.resolved.image, streaming.pull->Blobs());
  if (!rootfs.ok()) streaming.pull->Cancel(rootfs.status());
  absl::Status pulled = streaming.pull->Wait();
  // A pull that broke off broke the unpack too: its error is the cause.
  if (!pulled.ok() && !(absl::IsCancelled(pulled) && !rootfs.ok())) {
    return base::WithContext(
        pulled, absl::StrCat(plan.program_field, ": image \"", plan.image->ToString(), "\""));
  }
  if (!rootfs.ok()) return base::WithContext(rootfs.status(), unpacking);
  return JobImage{*streaming.resolved.image.config, *std::move(rootfs)};
}

}  // namespace trainpkg::sdk::local::internal
