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
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "packager/run/network_namespace.h"
#include "packager/run/transient_file.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/supervised_job_config.h"
#include "sdk/job_store.h"
#include "sdk/local/internal/running_replica.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::local::internal {

class LocalProcessBackend final : public sdk::internal::JobBackend {
 public:
  LocalProcessBackend(sdk::internal::SupervisedJobConfig config,
                      std::shared_ptr<sdk::internal::JobRecorder> recorder);
  ~LocalProcessBackend() override;

  absl::Status Start() override;
  void Wait() override;
  void Cancel(bool immediately) override;

 private:
  struct Replica {
    const sdk::internal::ReplicaPlan* plan;
    ReplicaDetails details;
    std::unique_ptr<RunningReplica> running;
    std::optional<ExitStatus> exit;  // guarded by mu_
    int exit_sequence = 0;           // 1 for the first replica to exit; guarded by mu_
  };
  enum class Outcome { kSucceeded, kFailed, kCancelled };

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
  // Reserves ports and starts every replica. Returns the failure, if any.
  std::optional<jobspec::RpcStatus> StartReplicas();
  // Waits for the job to succeed, fail, time out or be cancelled.
  Outcome Monitor(std::optional<jobspec::RpcStatus>& failure);
  // SIGTERM to every replica still running (on success: the parameter
  // servers), SIGKILL after the grace period, and waits until all of them
  // are reaped.
  void Stop();
  // True once cancellation was asked for here or through the job store.
  bool CancelRequested();
  void OnExit(size_t index, ExitStatus status);

  const sdk::internal::SupervisedJobConfig config_;
  const std::shared_ptr<sdk::internal::JobRecorder> recorder_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Replica> replicas_;  // the vector is only resized before the reapers start
  bool cancel_ = false;            // guarded by mu_
  bool kill_now_ = false;          // guarded by mu_
  bool done_ = false;              // guarded by mu_
  int exits_ = 0;                  // guarded by mu_
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
