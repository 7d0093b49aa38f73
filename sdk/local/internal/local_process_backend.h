// The local backend in process mode: every replica is a host process
// (see sdk/custom_job.h for the behaviour users see).
//
// One supervisor thread per job starts the replicas (so that their
// PR_SET_PDEATHSIG is bound to a thread that lives until the job ends),
// watches them and stops them; a reaper thread and a log pump per replica.
#ifndef TRAINPKG_SDK_LOCAL_INTERNAL_LOCAL_PROCESS_BACKEND_H_
#define TRAINPKG_SDK_LOCAL_INTERNAL_LOCAL_PROCESS_BACKEND_H_

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "packager/run/network_namespace.h"
#include "packager/run/transient_file.h"
#include "registry/oci/image_config.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/launch_plan.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/replica_set.h"
#include "sdk/internal/running_replica.h"
#include "sdk/internal/supervised_job_config.h"
#include "sdk/job_store.h"
#include "sdk/local/internal/job_image.h"
#include "sdk/local/internal/runc_container_launcher.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::local::internal {

using sdk::internal::ReplicaLaunch;
using sdk::internal::RunningReplica;

class LocalProcessBackend final : public sdk::internal::JobBackend {
 public:
  // `pull_images` fetches container-mode images absent from the job
  // store's image store (null: those are NotFound).
  LocalProcessBackend(sdk::internal::SupervisedJobConfig config,
                      std::shared_ptr<sdk::internal::JobRecorder> recorder,
                      sdk::internal::ImagePuller pull_images);
  ~LocalProcessBackend() override;

  absl::Status Start() override;
  void Wait() override;
  void Cancel(bool immediately) override;

 private:
  // What starts one replica: a host process, or runc running its container.
  struct PreparedReplica {
    ProcessSpec spec;
    std::optional<RuncContainer> container;
  };

  void Supervise();
  // Creates netns_ when container-mode replicas need it and it does not
  // exist yet. Returns the
  // failure, if any (a job that mixes local executables with containers
  // needs the host network).
  std::optional<jobspec::RpcStatus> MakeJobNetwork();
  // Writes etc_files_ when container-mode replicas need them and they do
  // not exist yet: one /etc/hosts naming every replica (all on 127.0.0.1)
  // and one /etc/resolv.conf for the job. Returns the failure, if any.
  std::optional<jobspec::RpcStatus> MakeJobEtcFiles();
  // Creates shared_shm_ when two or more replicas run as containers and it
  // does not exist yet: the /dev/shm their containers share. Returns the
  // failure, if any.
  std::optional<jobspec::RpcStatus> MakeJobSharedMemory();
  // Reserves ports, plans (MakeLaunchPlan), prepares and starts every
  // replica. Returns the failure, if any.
  std::optional<jobspec::RpcStatus> StartReplicas();
  // Each launch as a process spec; for container mode, the image resolved
  // (pulled when absent), unpacked, and the replica's runc bundle written.
  // On error no bundle is left. Moves the launches' environments.
  absl::StatusOr<std::vector<PreparedReplica>> PrepareReplicas(
      std::span<ReplicaLaunch> launches, std::span<const std::vector<std::string>> gpus);
  // imageUri -> its image, for every container-mode pool.
  absl::StatusOr<std::map<std::string, JobImage>> PrepareImages() const;
  static void DiscardBundles(std::span<const PreparedReplica> replicas);
  // Marks the job RUNNING and starts the replicas in order, unless a cancel
  // comes first. Returns the failure, if any.
  std::optional<jobspec::RpcStatus> LaunchReplicas(std::span<const PreparedReplica> prepared);

  const sdk::internal::SupervisedJobConfig config_;
  const std::shared_ptr<sdk::internal::JobRecorder> recorder_;
  const sdk::internal::ImagePuller pull_images_;
  // The replicas and the job's outcome (sdk/internal/replica_set.h).
  sdk::internal::ReplicaSet replicas_;
  int restarts_ = 0;  // job restarts so far; Supervise's thread only
  // The job's network namespace (container mode without host_network),
  // made by the supervisor before the first replica starts; only the
  // supervisor thread touches it.
  std::optional<packager::run::NetworkNamespace> netns_;
  // The job's /etc/hosts and /etc/resolv.conf for its containers (under
  // /run/trainpkg/etc, in the ledger so that a killed run leaves neither),
  // made with netns_ and gone with it; only the supervisor thread touches
  // them.
  std::vector<packager::run::TransientFile> etc_files_;
  // /dev/shm/trainpkg-job-<id>-<pid>, bind-mounted at /dev/shm in each of
  // the job's containers (in the ledger too), made with netns_ and gone
  // with it; only the supervisor thread touches it.
  std::optional<packager::run::TransientDirectory> shared_shm_;
  std::thread supervisor_;
};

}  // namespace trainpkg::sdk::local::internal

#endif  // TRAINPKG_SDK_LOCAL_INTERNAL_LOCAL_PROCESS_BACKEND_H_
