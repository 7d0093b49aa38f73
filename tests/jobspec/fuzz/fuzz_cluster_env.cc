// Fuzz target: any bytes as CLUSTER_SPEC and as TF_CONFIG through the
// cluster-env parsers, and what parses through the formatters. Must never
// crash or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/cluster_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ClusterSpecEnv> spec = ParseClusterSpec(text);
  if (spec.ok()) (void)FormatClusterSpec(*spec);
  absl::StatusOr<TfConfig> config = ParseTfConfig(text);
  if (config.ok()) (void)FormatTfConfig(*config);
  return 0;
}
