#include "sdk/ssh/internal/ssh_backend.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "registry/oci/digest_builder.h"
#include "sdk/internal/job_errors.h"
#include "sdk/internal/launch_plan.h"
#include "sdk/internal/task_manifest.h"
#include "sdk/ssh/internal/remote_script.h"
#include "sdk/version.h"

namespace trainpkg::sdk::ssh::internal {
namespace {

using sdk::internal::ReplicaPlan;

// google.rpc.Code UNAVAILABLE: a host could not be reached.
constexpr int kCodeUnavailable = 14;
// google.rpc.Code FAILED_PRECONDITION: a host lacks what the job needs there.
constexpr int kCodeFailedPrecondition = 9;
// How long one remote command (probe, setup, copy, signal) may take.
constexpr absl::Duration kCommandTimeout = absl::Seconds(60);
constexpr absl::Duration kSignalTimeout = absl::Seconds(5);

jobspec::RpcStatus Internal(std::string message) {
  return jobspec::RpcStatus{.code = sdk::internal::kCodeInternal, .message = std::move(message)};
}

// ssh exits with the remote command's status: the wrapper's, which is the
// replica's, 128+N when signal N ended it; 255 is ssh's own error.
ExitStatus FromSshExit(const ExitStatus& ssh) {
  if (ssh.signal == 0 && ssh.code > 128 && ssh.code <= 128 + 64) {
    return ExitStatus{.code = 0, .signal = ssh.code - 128};
  }
  return ssh;
}

// One replica's `ssh` here. Its stdin is a pipe kept open until it ends:
// the remote wrapper takes the pipe's end of file for a lost supervisor.
// Signals go to the replica's group on its host, over the master.
class SshReplicaProcess final : public Process {
 public:
  SshReplicaProcess(std::unique_ptr<base::Child> child, const SshConnection* connection,
                    std::string job_dir, std::string replica)
      : child_(std::move(child)),
        connection_(connection),
        job_dir_(std::move(job_dir)),
        replica_(std::move(replica)) {}

  int pid() const override { return child_->pid(); }
  int output_fd() const override { return child_->stdout_fd(); }
  ExitStatus Wait() override {
    absl::StatusOr<ExitStatus> exit = child_->Wait(base::Child::Rest::kKill);
    return exit.ok() ? FromSshExit(*exit) : ExitStatus{.code = 255};
  }
  std::optional<ExitStatus> TryWait() override {
    absl::StatusOr<std::optional<ExitStatus>> exit = child_->TryWait(base::Child::Rest::kKill);
    if (!exit.ok()) return ExitStatus{.code = 255};
    if (!exit->has_value()) return std::nullopt;
    return FromSshExit(**exit);
  }
  void SignalGroup(int signal) override {
    const char* name = signal == SIGKILL ? "KILL" : signal == SIGTERM ? "TERM" : nullptr;
    if (name != nullptr) {
      (void)connection_->Run(SignalCommand(job_dir_, replica_, name), "", kSignalTimeout);
    }
    // Without the connection the remote side is reached by ending ssh:
    // its wrapper then stops the replica.
    if (signal == SIGKILL) child_->SignalGroup(SIGKILL);
  }

 private:
  std::unique_ptr<base::Child> child_;
  const SshConnection* const connection_;
  const std::string job_dir_;
  const std::string replica_;
};

class SshReplicaLauncher final : public ProcessLauncher {
 public:
  SshReplicaLauncher(const SshConnection* connection, std::string job_dir)
      : connection_(connection), job_dir_(std::move(job_dir)) {}
  absl::StatusOr<std::unique_ptr<Process>> Start(const ProcessSpec& spec) override {
    absl::StatusOr<std::unique_ptr<base::Child>> child = base::Spawn(base::SpawnOptions{
        .argv = spec.argv,
        .program = spec.program,
        .environment = spec.env,
        .input = base::SpawnOptions::Input::kPipe,
    });
    if (!child.ok()) {
      return absl::Status(child.status().code(),
                          absl::StrCat("starting ", spec.name, ": ", child.status().message()));
    }
    return std::make_unique<SshReplicaProcess>(*std::move(child), connection_, job_dir_, spec.name);
  }

 private:
  const SshConnection* const connection_;
  const std::string job_dir_;
};

}  // namespace

SshBackend::SshBackend(SshBackendConfig config,
                       std::shared_ptr<sdk::internal::JobRecorder> recorder)
    : config_(std::move(config)),
      recorder_(recorder),
      replicas_(config_.job, std::move(recorder)) {}

SshBackend::~SshBackend() {
  Cancel(/*immediately=*/false);
  if (supervisor_.joinable()) supervisor_.join();
}

absl::Status SshBackend::Start() {
  // <job dir>/ssh: the masters' sockets and logs, and the hosts, which mark
  // the record as this backend's (SshDriver::ClaimsRecord).
  const std::filesystem::path dir = config_.job.store.JobDir(config_.job.job_id) / "ssh";
  TP_RETURN_IF_ERROR(MakePrivateDir(dir, ExistingDir::kNarrow));
  std::string hosts;
  for (const SshHost& host : config_.options.hosts)
    absl::StrAppend(&hosts, host.name, " slots=", host.slots, "\n");
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir / "hosts", hosts));
  supervisor_ = std::thread(&SshBackend::Supervise, this);
  return absl::OkStatus();
}

void SshBackend::Wait() { replicas_.Wait(); }

void SshBackend::Cancel(bool immediately) { replicas_.Cancel(immediately); }

void SshBackend::Supervise() {
  using Outcome = sdk::internal::ReplicaSet::Outcome;
  recorder_->SetState(jobspec::JobState::kPending);
  std::optional<jobspec::RpcStatus> failure;
  const Outcome outcome =
      replicas_.Supervise([this](int restarts) { return StartReplicas(restarts); }, failure);
  if (outcome == Outcome::kCancelled) recorder_->SetState(jobspec::JobState::kCancelling);
  replicas_.Stop();
  replicas_.FinishAll();
  CleanUpHosts();
  replicas_.Done(outcome, std::move(failure));
}

std::optional<jobspec::RpcStatus> SshBackend::ConnectHosts() {
  const std::filesystem::path dir = config_.job.store.JobDir(config_.job.job_id) / "ssh";
  SshClientConfig client{.ssh = config_.ssh,
                         .config = config_.options.ssh_config,
                         .connect_timeout = config_.options.connect_timeout,
                         .environment = config_.job.environment};
  hosts_.resize(config_.options.hosts.size());
  std::vector<size_t> used(config_.placement.begin(), config_.placement.end());
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  // Every master starts at once; then each is waited for.
  for (size_t h : used) {
    Host& host = hosts_[h];
    host.name = config_.options.hosts[h].name;
    absl::StatusOr<std::string> address = ResolveHostAddress(client, host.name);
    if (!address.ok()) return Internal(std::string(address.status().message()));
    host.address = *address;
    absl::StatusOr<std::unique_ptr<SshConnection>> connection = SshConnection::Start(
        client, host.name, dir / std::to_string(h), dir / absl::StrCat(h, ".log"));
    if (!connection.ok()) return Internal(std::string(connection.status().message()));
    host.connection = *std::move(connection);
  }
  for (size_t h : used) {
    if (absl::Status ready = hosts_[h].connection->AwaitReady(); !ready.ok()) {
      return jobspec::RpcStatus{
          .code = kCodeUnavailable,
          .message = absl::StrCat(ready.message(), ". No replica was started.")};
    }
  }
  return std::nullopt;
}

std::optional<jobspec::RpcStatus> SshBackend::StartReplicas(int restarts) {
  // The masters stay up across restarts; everything else is done again (the
  // ports in use changed, the replicas' environments were read and deleted).
  if (restarts == 0) {
    if (std::optional<jobspec::RpcStatus> failure = ConnectHosts()) return failure;
  }
  const std::vector<ReplicaPlan>& plans = config_.job.plans;
  const bool copy = config_.options.copy_executables;
  // Executables to copy: digest hex -> file name.
  std::map<std::string, std::string> executables;
  std::vector<std::string> digest_of(plans.size());
  if (copy) {
    for (size_t i = 0; i < plans.size(); ++i) {
      // The "local:" executable is copied; a command (/bin/sh, python3) is
      // the host's own.
      if (plans[i].image.has_value() || !absl::EndsWith(plans[i].program_field, "imageUri")) {
        continue;
      }
      absl::StatusOr<oci::DigestAndSize> digest = oci::DigestFile(plans[i].program);
      if (!digest.ok()) {
        return Internal(absl::StrCat(plans[i].program_field, ": ", digest.status().message()));
      }
      digest_of[i] = digest->digest.hex();
      executables[digest_of[i]] = std::filesystem::path(plans[i].program).filename().string();
    }
  }
  // Each host at once: probe, copy what it lacks, choose its ports.
  std::vector<std::vector<int>> free_ports(hosts_.size());
  std::vector<uint64_t> seeds;
  std::random_device random;
  for (size_t h = 0; h < hosts_.size(); ++h) {
    seeds.push_back((static_cast<uint64_t>(random()) << 32) | random());
  }
  std::optional<jobspec::RpcStatus> failure = OnEachHost([&](size_t h)
                                                             -> std::optional<jobspec::RpcStatus> {
    Host& host = hosts_[h];
    if (restarts == 0) {
      if (std::optional<jobspec::RpcStatus> missing = FindTrainpkg(host, h)) return missing;
    }
    absl::StatusOr<base::SubprocessResult> out =
        host.connection->Run("sh -s", ProbeScript(executables), kCommandTimeout);
    if (!out.ok() || out->exit_code != 0) {
      return Internal(absl::StrCat("Probing host ", host.name, ": ",
                                   out.ok() ? out->err : out.status().message()));
    }
    absl::StatusOr<HostProbe> probe = ParseProbe(out->out);
    if (!probe.ok()) {
      return Internal(absl::StrCat("Probing host ", host.name, ": ", probe.status().message()));
    }
    host.home = probe->home;
    host.job_dir = absl::StrCat(probe->home, "/", kRemoteCacheDir, "/jobs/", config_.job.job_id,
                                "-", ::getpid());
    for (const auto& [hex, name] : executables) {
      if (std::find(probe->cached.begin(), probe->cached.end(), hex) != probe->cached.end()) {
        continue;
      }
      // Only what this host's replicas run.
      bool needed = false;
      for (size_t i = 0; i < plans.size(); ++i) {
        needed = needed || (config_.placement[i] == h && digest_of[i] == hex);
      }
      if (!needed) continue;
      size_t plan = 0;
      while (digest_of[plan] != hex) ++plan;
      absl::StatusOr<std::string> content = base::ReadFile(plans[plan].program);
      if (!content.ok()) {
        return Internal(absl::StrCat(plans[plan].program_field, ": ", content.status().message()));
      }
      absl::StatusOr<base::SubprocessResult> copied =
          host.connection->Run(CacheInsertCommand(hex, name), *content, kCommandTimeout);
      if (!copied.ok() || copied->exit_code != 0) {
        return Internal(absl::StrCat("Copying ", plans[plan].program, " to host ", host.name, ": ",
                                     copied.ok() ? copied->err : copied.status().message()));
      }
    }
    size_t count = 0;
    for (size_t i = 0; i < plans.size(); ++i) count += config_.placement[i] == h ? 1 : 0;
    if (config_.placement[0] == h) ++count;  // MASTER_PORT on the chief's host
    absl::StatusOr<std::vector<int>> ports = ChooseFreePorts(*probe, count, seeds[h]);
    if (!ports.ok()) {
      return Internal(
          absl::StrCat("Choosing ports on host ", host.name, ": ", ports.status().message()));
    }
    free_ports[h] = *std::move(ports);
    return std::nullopt;
  });
  if (failure.has_value()) return failure;
  // The launch plan: each replica at its host's address and a port free there.
  std::vector<int> ports;
  std::vector<std::string> addresses;
  std::vector<size_t> next(hosts_.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    const size_t h = config_.placement[i];
    ports.push_back(free_ports[h][next[h]++]);
    addresses.push_back(hosts_[h].address);
  }
  ports.push_back(free_ports[config_.placement[0]][next[config_.placement[0]]++]);
  absl::StatusOr<std::vector<sdk::internal::ReplicaLaunch>> launches =
      sdk::internal::MakeLaunchPlan(sdk::internal::LaunchPlanRequest{
          .spec = &config_.job.spec,
          .plans = plans,
          .job_id = config_.job.job_id,
          .project_id = config_.job.project_id,
          .job_secret = config_.job.job_secret,
          .environment = &config_.job.environment,
          .ports = ports,
          .gpus = {},
          .hosts = addresses,
          .remote = true,
      });
  if (!launches.ok()) return Internal(std::string(launches.status().message()));
  // Each host's job directory, at once: the wrapper and its replicas' environments.
  failure = OnEachHost([&](size_t h) -> std::optional<jobspec::RpcStatus> {
    Host& host = hosts_[h];
    std::map<std::string, std::map<std::string, std::string>> envs;
    std::map<std::string, std::string> manifests;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (config_.placement[i] != h) continue;
      const std::string name = plans[i].ref.Name();
      if (!plans[i].image.has_value()) {
        envs[name] = (*launches)[i].env;
        continue;
      }
      // A container replica: `trainpkg ssh-replica` reads its cluster env
      // from its manifest (and deletes it); the wrapper's env file is empty.
      envs[name] = {};
      manifests[name + ".json"] = sdk::internal::FormatTaskManifest(sdk::internal::TaskManifest{
          .job_id = config_.job.job_id,
          .project_id = config_.job.project_id,
          .spec = config_.job.spec,
          .replica = name,
          .env = (*launches)[i].env,
      });
    }
    absl::StatusOr<base::SubprocessResult> out = host.connection->Run(
        "sh -s", SetupScript(host.job_dir, config_.job.grace_period, envs, manifests),
        kCommandTimeout);
    host.set_up = true;
    if (!out.ok() || out->exit_code != 0) {
      return Internal(absl::StrCat("Setting up host ", host.name, ": ",
                                   out.ok() ? out->err : out.status().message()));
    }
    return std::nullopt;
  });
  if (failure.has_value()) return failure;
  std::error_code ec;
  const std::string cwd = copy ? "" : std::filesystem::current_path(ec).string();
  std::vector<sdk::internal::ReplicaSet::Replica> replicas(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    const Host& host = hosts_[config_.placement[i]];
    replicas[i].pool = plans[i].ref.pool;
    replicas[i].failure_name = absl::StrCat(plans[i].ref.Name(), "@", host.name);
    replicas[i].details.name = plans[i].ref.Name();
    replicas[i].details.host = host.name;
    replicas[i].details.address = (*launches)[i].address;
    replicas[i].details.restarts = restarts;
    std::vector<std::string> argv = plans[i].argv;
    if (plans[i].image.has_value()) {
      argv = {host.trainpkg, "ssh-replica",
              absl::StrCat(host.job_dir, "/", plans[i].ref.Name(), ".json")};
    } else if (!digest_of[i].empty()) {
      argv[0] =
          absl::StrCat(host.home, "/", CachedExecutable(digest_of[i], executables[digest_of[i]]));
    } else {
      argv[0] = plans[i].program;
    }
    replicas[i].details.argv = argv;
  }
  replicas_.Reset(std::move(replicas));
  // RUNNING from the first start on, as the local backend.
  if (replicas_.CancelRequested()) return std::nullopt;
  recorder_->SetState(jobspec::JobState::kRunning);
  // Whatever started, however the loop ends, reaches local.json at once.
  absl::Cleanup record = [this] { replicas_.RecordStarted(); };
  for (size_t i = 0; i < plans.size(); ++i) {
    if (replicas_.CancelRequested()) return std::nullopt;
    const Host& host = hosts_[config_.placement[i]];
    const std::string name = replicas_.at(i).details.name;
    SshReplicaLauncher launcher(host.connection.get(), host.job_dir);
    const std::string command =
        ReplicaCommand(host.job_dir, name, copy ? host.home : cwd, replicas_.at(i).details.argv);
    ProcessSpec spec{.name = name,
                     .program = config_.ssh.string(),
                     .argv = host.connection->Argv(command),
                     .env = config_.job.environment};
    if (absl::Status started = replicas_.StartReplica(i, launcher, spec); !started.ok()) {
      return jobspec::RpcStatus{
          .code = sdk::internal::kCodeReplicaFailed,
          .message = absl::StrCat("The replica ", name, "@", host.name,
                                  " could not be started: ", started.message())};
    }
  }
  return std::nullopt;
}

std::optional<jobspec::RpcStatus> SshBackend::FindTrainpkg(Host& host, size_t h) {
  bool images = false;
  for (size_t i = 0; i < config_.job.plans.size(); ++i) {
    images = images || (config_.placement[i] == h && config_.job.plans[i].image.has_value());
  }
  if (!images) return std::nullopt;
  const std::string& program = config_.options.remote_trainpkg;
  const std::string wanted = TrainpkgVersionLine();
  const std::string needs =
      absl::StrCat("Host ", host.name,
                   " runs container images, which needs trainpkg there (the same version "
                   "as this one, \"",
                   wanted,
                   "\", with runc, as root): install it on the login's PATH or "
                   "give its path with --remote-trainpkg (SshBackendOptions::remote_trainpkg). ");
  absl::StatusOr<base::SubprocessResult> out =
      host.connection->Run(TrainpkgVersionCommand(program), "", kCommandTimeout);
  if (!out.ok() || out->exit_code != 0) {
    return Internal(absl::StrCat("Looking for trainpkg on host ", host.name, ": ",
                                 out.ok() ? out->err : out.status().message()));
  }
  const RemoteTrainpkg found = ParseTrainpkgVersion(out->out);
  if (found.path.empty()) {
    return jobspec::RpcStatus{
        .code = kCodeFailedPrecondition,
        .message = absl::StrCat(needs, "\"", program,
                                "\" is not an executable there. No replica was started.")};
  }
  if (found.version != wanted) {
    return jobspec::RpcStatus{
        .code = kCodeFailedPrecondition,
        .message = absl::StrCat(needs, "Its ", found.path, " is \"", found.version,
                                "\". No replica was started.")};
  }
  host.trainpkg = found.path;
  return std::nullopt;
}

std::optional<jobspec::RpcStatus> SshBackend::OnEachHost(
    const std::function<std::optional<jobspec::RpcStatus>(size_t)>& step) {
  std::vector<std::optional<jobspec::RpcStatus>> failures(hosts_.size());
  std::vector<std::thread> threads;
  for (size_t h = 0; h < hosts_.size(); ++h) {
    if (hosts_[h].connection != nullptr) threads.emplace_back([&, h] { failures[h] = step(h); });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::optional<jobspec::RpcStatus>& failure : failures) {
    if (failure.has_value()) return failure;
  }
  return std::nullopt;
}

void SshBackend::CleanUpHosts() {
  for (Host& host : hosts_) {
    if (host.connection == nullptr) continue;
    if (host.set_up) {
      (void)host.connection->Run(CleanupCommand(host.job_dir), "", kCommandTimeout);
    }
    host.connection->Close();
  }
}

}  // namespace trainpkg::sdk::ssh::internal
