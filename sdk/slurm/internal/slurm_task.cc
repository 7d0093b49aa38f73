#include "sdk/slurm/internal/slurm_task.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "jobspec/job_secret.h"
#include "sdk/internal/env_expansion.h"
#include "sdk/internal/find_executable.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/task_manifest.h"
#include "sdk/slurm/internal/batch_script.h"
#include "sdk/slurm/internal/peer_rendezvous.h"
#include "sdk/slurm/internal/replica_exit_record.h"
#include "sdk/slurm/internal/slurm_job_files.h"

namespace trainpkg::sdk::slurm::internal {

using sdk::internal::ParseTaskManifest;
using sdk::internal::TaskManifest;

namespace {

// The rendezvous entry holding MASTER_PORT (jobspec/cluster_env.h); no
// replica is called that.
constexpr char kMasterPortEntry[] = "pytorch-master-port";

// A free port on `ip` other than `taken` (FreePortOn may hand the same one
// out again once it is closed).
absl::StatusOr<int> FreeSecondPortOn(const std::string& ip, int taken) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    TP_ASSIGN_OR_RETURN(int port, FreePortOn(ip));
    if (port != taken) return port;
  }
  return absl::UnavailableError(
      absl::StrCat("no free port on ", ip, " for MASTER_PORT other than ", taken));
}

constexpr int kForwardedSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};

volatile sig_atomic_t child_pid = 0;

void ForwardSignal(int signal) {
  if (child_pid > 0) ::kill(child_pid, signal);
}

absl::StatusOr<int64_t> IntVariable(const std::map<std::string, std::string>& environment,
                                    const std::string& name) {
  auto it = environment.find(name);
  if (it == environment.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name,
                     ": not set; this program runs under srun, started by the batch script "
                     "of a trainpkg Slurm job"));
  }
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value) || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": \"", it->second, "\" is not a non-negative integer"));
  }
  return value;
}

}  // namespace

absl::StatusOr<jobspec::ReplicaRef> ReplicaFromSlurmEnv(
    const std::map<std::string, std::string>& environment) {
  TP_ASSIGN_OR_RETURN(int64_t pool, IntVariable(environment, kPoolVariable));
  TP_ASSIGN_OR_RETURN(int64_t index, IntVariable(environment, "SLURM_PROCID"));
  return jobspec::ReplicaRef{.pool = static_cast<int>(pool), .index = index};
}

absl::StatusOr<ProcessSpec> PrepareSlurmTask(const std::map<std::string, std::string>& environment,
                                             const SlurmTaskOptions& options) {
  const SlurmJobFiles files(options.job_dir);
  TP_ASSIGN_OR_RETURN(const jobspec::ReplicaRef self, ReplicaFromSlurmEnv(environment));
  TP_ASSIGN_OR_RETURN(std::string manifest_text, base::ReadFile(files.manifest()));
  absl::StatusOr<TaskManifest> manifest = ParseTaskManifest(manifest_text);
  if (!manifest.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(files.manifest().string(), ": ", manifest.status().message()));
  }
  TP_ASSIGN_OR_RETURN(std::vector<sdk::internal::ReplicaPlan> plans,
                      sdk::internal::PlanReplicas(manifest->spec));
  const sdk::internal::ReplicaPlan* plan = nullptr;
  std::vector<std::string> names;
  for (const sdk::internal::ReplicaPlan& candidate : plans) {
    names.push_back(candidate.ref.Name());
    if (candidate.ref == self) plan = &candidate;
  }
  if (plan == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(kPoolVariable, "=", self.pool,
                                                   " and SLURM_PROCID=", self.index,
                                                   ": the job has no replica ", self.Name()));
  }
  if (plan->image.has_value()) {
    return absl::UnimplementedError(
        absl::StrCat(plan->program_field, ": the Slurm backend runs local: executables only"));
  }

  auto launch_node = environment.find("SLURM_LAUNCH_NODE_IPADDR");
  if (launch_node == environment.end()) {
    return absl::InvalidArgumentError(
        "SLURM_LAUNCH_NODE_IPADDR: not set; not inside an srun step?");
  }
  // The address on the network the job's nodes share: a node may have
  // several, and only that one reaches the others.
  TP_ASSIGN_OR_RETURN(std::string ip, NodeAddressToward(launch_node->second));
  TP_ASSIGN_OR_RETURN(int port, FreePortOn(ip));
  if (self.pool == 0) {
    // The chief also picks MASTER_PORT, PyTorch's rendezvous port on its
    // node, and publishes it beside the replicas' addresses.
    TP_ASSIGN_OR_RETURN(int master_port, FreeSecondPortOn(ip, port));
    TP_RETURN_IF_ERROR(PublishPeer(files.peers_dir(), kMasterPortEntry, absl::StrCat(master_port)));
  }
  TP_RETURN_IF_ERROR(PublishPeer(files.peers_dir(), self.Name(), absl::StrCat(ip, ":", port)));
  names.push_back(kMasterPortEntry);
  // Every task publishes, then waits for all: each replica's CLUSTER_SPEC
  // names every address, so none can start before all are known.
  TP_ASSIGN_OR_RETURN(auto peers,
                      WaitForPeers(files.peers_dir(), names, options.rendezvous_timeout));
  int master_port = 0;
  if (!absl::SimpleAtoi(peers.at(kMasterPortEntry), &master_port)) {
    return absl::InvalidArgumentError(absl::StrCat((files.peers_dir() / kMasterPortEntry).string(),
                                                   ": not a port number"));
  }

  auto secret = environment.find(jobspec::kJobSecretEnv);  // from sbatch's environment
  jobspec::ClusterEnvRequest request{
      .spec = manifest->spec,
      .job_id = manifest->job_id,
      .project_id = manifest->project_id,
      .trial_id = "",
      .addresses = {},
      .replica = self,
      .job_secret = secret == environment.end() ? std::string() : secret->second,
      .pytorch_master_port = master_port};
  request.addresses.resize(manifest->spec.worker_pool_specs.size());
  for (const sdk::internal::ReplicaPlan& other : plans) {
    request.addresses[static_cast<size_t>(other.ref.pool)].push_back(peers.at(other.ref.Name()));
  }
  TP_ASSIGN_OR_RETURN(auto cluster_env, jobspec::MakeClusterEnv(request));

  ProcessSpec spec{
      .name = self.Name(), .program = plan->program, .argv = plan->argv, .env = environment};
  for (auto& [name, value] : cluster_env) spec.env.insert_or_assign(name, std::move(value));
  sdk::internal::ApplyEnvVars(plan->env, spec.env);
  auto path = spec.env.find("PATH");
  absl::StatusOr<std::string> program = sdk::internal::FindExecutable(
      spec.program, path == spec.env.end() ? std::string() : path->second);
  if (!program.ok()) {
    return base::WithContext(program.status(), plan->program_field);
  }
  spec.program = *std::move(program);
  return spec;
}

int RunReplica(const ProcessSpec& spec, const std::filesystem::path& exits_dir, std::ostream& err) {
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : spec.env) env_strings.push_back(absl::StrCat(name, "=", value));
  std::vector<char*> argv;
  for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  struct sigaction forward {};
  forward.sa_handler = ForwardSignal;
  ::sigemptyset(&forward.sa_mask);
  forward.sa_flags = SA_RESTART;
  for (int signal : kForwardedSignals) ::sigaction(signal, &forward, nullptr);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    err << spec.name << ": fork: " << std::strerror(errno) << std::endl;
    return 127;
  }
  if (pid == 0) {
    for (int signal : kForwardedSignals) ::signal(signal, SIG_DFL);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::execve(spec.program.c_str(), argv.data(), envp.data());
    const char* reason = std::strerror(errno);
    ::dprintf(STDERR_FILENO, "%s: executing %s: %s\n", spec.name.c_str(), spec.program.c_str(),
              reason);
    ::_exit(127);
  }
  child_pid = pid;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  child_pid = 0;
  ExitStatus exit;
  if (WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
  } else {
    exit.code = WEXITSTATUS(status);
  }
  absl::Status recorded = WriteReplicaExitRecord(
      exits_dir, ReplicaExitRecord{.replica = spec.name, .status = exit, .time = absl::Now()});
  if (!recorded.ok()) err << spec.name << ": " << recorded.message() << std::endl;
  return exit.signal != 0 ? 128 + exit.signal : exit.code;
}

}  // namespace trainpkg::sdk::slurm::internal
