// Fuzz target: any bytes as an image manifest and as an image index (and as
// a descriptor). Must never crash or trip a sanitizer; whatever parses must
// serialize to canonical bytes that parse back to the same value, and
// validation must not crash on it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::oci;
  std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ImageManifest> manifest = ParseImageManifest(json);
  if (manifest.ok()) {
    (void)ValidateImageManifest(*manifest);
    (void)ManifestFamily(*manifest);
    std::string canonical = SerializeImageManifest(*manifest);
    absl::StatusOr<ImageManifest> again = ParseImageManifest(canonical);
    TP_CHECK(again.ok() && *again == *manifest, "manifest does not round-trip via {}", canonical);
  }
  absl::StatusOr<ImageIndex> index = ParseImageIndex(json);
  if (index.ok()) {
    (void)ValidateImageIndex(*index);
    std::string canonical = SerializeImageIndex(*index);
    absl::StatusOr<ImageIndex> again = ParseImageIndex(canonical);
    TP_CHECK(again.ok() && *again == *index, "index does not round-trip via {}", canonical);
  }
  (void)ParseDescriptor(json);
  return 0;
}
