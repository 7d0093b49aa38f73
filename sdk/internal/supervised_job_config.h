// What a supervised job's engine is given to run it: the job as recorded,
// its replica plans, the environment, the launcher, the job store. The
// local backend's LocalProcessBackend and the Slurm backend's SlurmBackend
// are both built from one (sdk/internal/supervised_job.h).
#ifndef TRAINPKG_SDK_INTERNAL_SUPERVISED_JOB_CONFIG_H_
#define TRAINPKG_SDK_INTERNAL_SUPERVISED_JOB_CONFIG_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/job_store.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::internal {

struct SupervisedJobConfig {
  std::string job_id;
  std::string project_id;
  jobspec::CustomJobSpec spec;                     // as recorded (absolute paths, output dir set)
  std::vector<ReplicaPlan> plans;                  // PlanReplicas(spec)
  std::map<std::string, std::string> environment;  // inherited by every replica
  // TRAINPKG_JOB_SECRET of every replica (jobspec::NewJobSecret, one per job).
  std::string job_secret;
  absl::Duration grace_period;
  std::shared_ptr<ProcessLauncher> launcher;
  JobStore store;
  LineStream* live = nullptr;  // replica output; not owned, may be null
  // Container mode: the containers share the host's network instead of one
  // network namespace per job (loopback only).
  bool host_network = false;
  // How often the supervisor looks for a cancel request from another process.
  absl::Duration cancel_poll_interval = absl::Milliseconds(100);
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_SUPERVISED_JOB_CONFIG_H_
