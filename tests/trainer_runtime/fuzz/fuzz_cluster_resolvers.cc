// Fuzz target: any bytes as a process environment (NAME=value lines) through
// ResolveClusterInfo and each launcher's resolver on its own: TF_CONFIG,
// CLUSTER_SPEC, torchrun (RANK, WORLD_SIZE, MASTER_ADDR, ...) and Slurm
// (SLURM_PROCID, SLURM_STEP_NODELIST, ...). Must never crash, hang or trip
// a sanitizer; errors are fine. A resolved ClusterInfo must be coherent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/environment.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/cluster_spec_resolver.h"
#include "trainer_runtime/slurm_resolver.h"
#include "trainer_runtime/tf_config_resolver.h"
#include "trainer_runtime/torchrun_resolver.h"

namespace {

void CheckCoherent(const trainpkg::runtime::ClusterInfo& info) {
  TP_CHECK(info.world_size >= 1, "{}: world_size {}", info.source, info.world_size);
  TP_CHECK(info.rank >= -1 && info.rank < info.world_size, "{}: rank {} of {}", info.source,
           info.rank, info.world_size);
  TP_CHECK(!info.is_chief || info.rank == 0, "{}: chief with rank {}", info.source, info.rank);
}

template <typename Resolver>
void Try(Resolver resolve, const trainpkg::base::Environment& env) {
  auto info = resolve(env);
  if (info.ok() && info->has_value()) CheckCoherent(**info);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::runtime;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  trainpkg::base::MapEnvironment env;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    size_t eq = line.find('=');
    if (eq != std::string_view::npos) {
      env.Set(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  absl::StatusOr<ClusterInfo> info = ResolveClusterInfo(env);
  if (info.ok()) CheckCoherent(*info);
  Try(ResolveFromTfConfig, env);
  Try(ResolveFromClusterSpec, env);
  Try(ResolveFromTorchrun, env);
  Try(ResolveFromSlurm, env);
  return 0;
}
