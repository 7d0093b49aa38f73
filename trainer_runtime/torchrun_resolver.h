// ClusterInfo from the variables torchrun (torch.distributed.run) sets for
// each process it starts: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and
// LOCAL_RANK. Every process is a "worker" with task_index = RANK; with no
// chief in the cluster, rank 0 is the chief (cluster_info.h).
#ifndef TRAINPKG_TRAINER_RUNTIME_TORCHRUN_RESOLVER_H_
#define TRAINPKG_TRAINER_RUNTIME_TORCHRUN_RESOLVER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "trainer_runtime/cluster_info.h"

namespace trainpkg::runtime {

// nullopt when RANK is unset or empty. Otherwise WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT are required; LOCAL_RANK defaults to 0 (plain env:// launches
// do not set it). coordinator_address is MASTER_ADDR:MASTER_PORT (an IPv6
// address in brackets); worker_addresses stays empty because torchrun names
// only rank 0. trial_id is CLOUD_ML_TRIAL_ID. InvalidArgument naming the
// variable when one is missing or not a valid number, RANK >= WORLD_SIZE, or
// MASTER_PORT is outside 1..65535.
absl::StatusOr<std::optional<ClusterInfo>> ResolveFromTorchrun(const base::Environment& env);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_TORCHRUN_RESOLVER_H_
