#include "tests/registry/test_image.h"

#include <algorithm>

#include "base/status_macros.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::registry::testing {

std::string PseudoRandomBytes(size_t n, unsigned seed) {
  std::string out(n, '\0');
  uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<char>(x);
  }
  return out;
}

absl::StatusOr<TestImage> WriteTestImage(const oci::Layout& layout, const std::string& tag,
                                         const std::vector<std::string>& layers,
                                         const std::string& architecture,
                                         const oci::Annotations& annotations,
                                         const std::vector<size_t>& omit) {
  TestImage image;
  oci::ImageConfig config;
  config.architecture = architecture;
  config.os = "linux";
  config.rootfs.type = "layers";
  for (size_t i = 0; i < layers.size(); ++i) {
    oci::Descriptor layer = oci::DescribeContent(layers[i], oci::media_types::kOciLayer);
    if (std::find(omit.begin(), omit.end(), i) == omit.end()) {
      TP_RETURN_IF_ERROR(layout.WriteBlob(layer, layers[i]));
    }
    config.rootfs.diff_ids.push_back(layer.digest);
    image.layers.push_back(layer);
  }
  TP_ASSIGN_OR_RETURN(image.config, layout.WriteBlob(oci::SerializeImageConfig(config),
                                                     oci::media_types::kOciImageConfig));
  oci::ImageManifest manifest;
  manifest.config = image.config;
  manifest.layers = image.layers;
  manifest.annotations = annotations;
  TP_ASSIGN_OR_RETURN(image.manifest, layout.WriteBlob(oci::SerializeImageManifest(manifest),
                                                       oci::media_types::kOciImageManifest));
  if (!tag.empty()) TP_RETURN_IF_ERROR(layout.Tag(image.manifest, tag));
  return image;
}

absl::StatusOr<oci::Descriptor> WriteTestIndex(
    const oci::Layout& layout, const std::string& tag,
    const std::vector<std::pair<oci::Descriptor, std::string>>& manifests_and_architectures) {
  oci::ImageIndex index;
  for (const auto& [manifest, architecture] : manifests_and_architectures) {
    oci::Descriptor entry = manifest;
    entry.platform = oci::Platform();
    entry.platform->architecture = architecture;
    entry.platform->os = "linux";
    index.manifests.push_back(entry);
  }
  TP_ASSIGN_OR_RETURN(
      oci::Descriptor descriptor,
      layout.WriteBlob(oci::SerializeImageIndex(index), oci::media_types::kOciImageIndex));
  TP_RETURN_IF_ERROR(layout.Tag(descriptor, tag));
  return descriptor;
}

}  // namespace trainpkg::registry::testing
