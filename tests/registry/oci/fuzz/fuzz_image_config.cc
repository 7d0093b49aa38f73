// Fuzz target: any bytes as an image config (OCI / Docker), the JSON a base
// image brings into every build. Must never crash or trip a sanitizer;
// whatever parses must serialize to canonical bytes that parse back to the
// same value (unknown fields included), and validation must not crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "registry/oci/image_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::oci;
  std::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ImageConfig> config = ParseImageConfig(json);
  if (!config.ok()) return 0;
  (void)ValidateImageConfig(*config);
  std::string canonical = SerializeImageConfig(*config);
  absl::StatusOr<ImageConfig> again = ParseImageConfig(canonical);
  TP_CHECK(again.ok(), "config serializes as {}, which does not parse: {}", canonical,
           again.status().ToString());
  TP_CHECK(*again == *config, "config does not round-trip via {}", canonical);
  return 0;
}
