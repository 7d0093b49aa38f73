// Small images written into an oci-layout for push/pull tests: uncompressed
// "layers" of deterministic pseudo-random bytes, a valid image config and
// an OCI manifest, optionally gathered in an index.
#ifndef TRAINPKG_TESTS_REGISTRY_TEST_IMAGE_H_
#define TRAINPKG_TESTS_REGISTRY_TEST_IMAGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "registry/oci/annotations.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/layout.h"

namespace trainpkg::registry::testing {

// `n` bytes that differ for each seed.
std::string PseudoRandomBytes(size_t n, unsigned seed);

struct TestImage {
  oci::Descriptor manifest{};
  std::vector<oci::Descriptor> layers{};
  oci::Descriptor config{};
};

// Writes the layers, a linux/`architecture` config and the manifest (with
// `annotations`) and tags it `tag` (none when empty). Layers listed in
// `omit` are described but not stored (a shallow base).
absl::StatusOr<TestImage> WriteTestImage(const oci::Layout& layout, const std::string& tag,
                                         const std::vector<std::string>& layers,
                                         const std::string& architecture = "amd64",
                                         const oci::Annotations& annotations = {},
                                         const std::vector<size_t>& omit = {});

// Writes an OCI index of `manifests` (each with its linux platform) and tags it.
absl::StatusOr<oci::Descriptor> WriteTestIndex(
    const oci::Layout& layout, const std::string& tag,
    const std::vector<std::pair<oci::Descriptor, std::string>>& manifests_and_architectures);

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_TEST_IMAGE_H_
