// The SSH backend's engine (sdk/internal/job_backend.h): runs one recorded
// job's replicas on their hosts through OpenSSH (ssh_client.h) under the
// remote wrapper (remote_script.h), supervised by a thread of this process.
//
// Start order, all before any replica runs: one master connection per host
// (an unreachable host fails the job here, naming it), on hosts that run
// container images their trainpkg found and its version checked, a probe of each host
// (home, cached executables, TCP ports in use), the executables copied where
// missing, ports chosen among the host's free ones, the launch plan (every
// replica's cluster env with the hosts' addresses), and each host's job
// directory with the wrapper and the replicas' environments (0600, removed
// once read), and for each container replica its task manifest (read and
// deleted by `trainpkg ssh-replica`, which runs it with runc on the host:
// sdk/local/container_replica_runner.h). Each replica is then one `ssh` through its host's master,
// whose output is the replica's log; SIGTERM/SIGKILL reach the replica's
// process group on its host through the master. When the job ends the
// hosts' job directories are removed and the masters closed.
#ifndef TRAINPKG_SDK_SSH_INTERNAL_SSH_BACKEND_H_
#define TRAINPKG_SDK_SSH_INTERNAL_SSH_BACKEND_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "jobspec/custom_job.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/replica_set.h"
#include "sdk/internal/running_replica.h"
#include "sdk/internal/supervised_job_config.h"
#include "sdk/local_job_details.h"
#include "sdk/ssh/internal/ssh_client.h"
#include "sdk/ssh/ssh_backend_options.h"

namespace trainpkg::sdk::ssh::internal {

struct SshBackendConfig {
  sdk::internal::SupervisedJobConfig job;
  SshBackendOptions options;
  std::vector<size_t> placement;  // PlaceReplicas(options.hosts, job.plans.size())
  std::filesystem::path ssh;      // absolute path of the ssh program
};

class SshBackend final : public sdk::internal::JobBackend {
 public:
  SshBackend(SshBackendConfig config, std::shared_ptr<sdk::internal::JobRecorder> recorder);
  ~SshBackend() override;

  absl::Status Start() override;
  void Wait() override;
  void Cancel(bool immediately) override;

 private:
  struct Host {
    std::string name;     // as given: "host2"
    std::string address;  // what the replicas reach it at (ssh -G's hostname)
    std::unique_ptr<SshConnection> connection;
    std::string home;
    std::string job_dir;   // on the host
    bool set_up = false;   // job_dir written
    std::string trainpkg;  // its trainpkg's path, when it runs container images
  };

  void Supervise();
  // Connects (the first time), probes, copies, plans and sets up every host,
  // then starts the replicas; `restarts`: the job's restarts so far
  // (ReplicaSet::Supervise). The failure, if any.
  std::optional<jobspec::RpcStatus> StartReplicas(int restarts);
  std::optional<jobspec::RpcStatus> ConnectHosts();
  // Runs `step` for every connected host, each on a thread of its own (the
  // remote commands of one host wait on the network, not on each other);
  // the failure of the first host that failed, if any.
  std::optional<jobspec::RpcStatus> OnEachHost(
      const std::function<std::optional<jobspec::RpcStatus>(size_t)>& step);
  // For a host that runs container images: finds its trainpkg (in
  // host.trainpkg) and checks that it is this version; the failure
  // otherwise, saying what the host needs.
  std::optional<jobspec::RpcStatus> FindTrainpkg(Host& host, size_t h);
  void CleanUpHosts();

  const SshBackendConfig config_;
  const std::shared_ptr<sdk::internal::JobRecorder> recorder_;
  std::vector<Host> hosts_;  // one per host of options.hosts; only the supervisor touches it
  sdk::internal::ReplicaSet replicas_;
  std::thread supervisor_;
};

}  // namespace trainpkg::sdk::ssh::internal

#endif  // TRAINPKG_SDK_SSH_INTERNAL_SSH_BACKEND_H_
