#include "packager/builder/base_image.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder {

std::vector<oci::Descriptor> ToOciLayers(std::vector<oci::Descriptor> layers) {
  for (oci::Descriptor& layer : layers) {
    std::string_view oci_type = oci::OciEquivalent(layer.media_type);
    if (!oci_type.empty()) layer.media_type = std::string(oci_type);
  }
  return layers;
}

absl::StatusOr<ResolvedBase> ResolveBase(const dockerfile::BaseImage& base,
                                         const oci::Platform& platform,
                                         RegistryBaseSource* registry) {
  using Kind = dockerfile::BaseImage::Kind;
  ResolvedBase out;
  switch (base.kind) {
    case Kind::kScratch:
      out.config.architecture = platform.architecture;
      out.config.os = platform.os;
      out.config.variant = platform.variant;
      out.config.config.env = {};
      return out;
    case Kind::kOciLayout: {
      std::string name =
          fmt::format("oci:{}{}", base.oci_dir, base.oci_ref.empty() ? "" : ":" + base.oci_ref);
      const std::string context = fmt::format("base image {}", name);
      TP_ASSIGN_OR_RETURN_WITH_CONTEXT(oci::Layout layout, oci::Layout::Open(base.oci_dir),
                                       context);
      TP_ASSIGN_OR_RETURN_WITH_CONTEXT(auto image, layout.ReadImage(base.oci_ref, platform),
                                       context);
      if (!image.config.has_value()) {
        return absl::FailedPreconditionError(
            fmt::format("{}: its config blob {} is absent from the layout", context,
                        image.manifest.config.digest.ToString()));
      }
      out.config = *image.config;
      out.layers = ToOciLayers(image.manifest.layers);
      out.manifest_digest = image.descriptor.digest;
      out.config_digest = image.manifest.config.digest;
      out.layout = std::move(layout);
      return out;
    }
    case Kind::kRegistry:
      if (registry == nullptr) {
        return absl::FailedPreconditionError(fmt::format(
            "base image {}: no registry client was configured for registry bases", base.reference));
      }
      return registry->Fetch(base.reference, platform);
    case Kind::kStage:
      break;
  }
  std::fprintf(stderr, "ResolveBase: stage bases are the builder's (stage %d)\n", base.stage);
  std::abort();
}

}  // namespace trainpkg::packager::builder
