#include "sdk/local/internal/local_process_backend.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/log.h"
#include "base/status_context.h"
#include "jobspec/cluster_env.h"
#include "jobspec/custom_job_json.h"
#include "packager/run/hosts_file.h"
#include "packager/run/resolv_conf.h"
#include "packager/unpack/rootfs_cache.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/job_errors.h"
#include "sdk/internal/launch_plan.h"
#include "sdk/local/internal/container_replica.h"
#include "sdk/local/internal/gpu_inventory.h"
#include "sdk/local/internal/job_image.h"
#include "sdk/local/internal/port_reservation.h"
#include "sdk/local/internal/runc_container_launcher.h"

namespace trainpkg::sdk::local::internal {
namespace {

// Where the jobs' /etc/hosts and /etc/resolv.conf files live (a tmpfs).
constexpr char kJobEtcDir[] = "/run/trainpkg/etc";

// Replica names are [a-z0-9-], job ids digits (or a user's valid id).
std::string ContainerId(const std::string& job_id, const std::string& replica) {
  return absl::StrCat("trainpkg-", job_id, "-", replica);
}

}  // namespace

LocalProcessBackend::LocalProcessBackend(sdk::internal::SupervisedJobConfig config,
                                         std::shared_ptr<sdk::internal::JobRecorder> recorder,
                                         sdk::internal::ImagePuller pull_images)
    : config_(std::move(config)),
      recorder_(std::move(recorder)),
      pull_images_(std::move(pull_images)),
      replicas_(config_, recorder_) {}

LocalProcessBackend::~LocalProcessBackend() {
  Cancel(/*immediately=*/false);
  if (supervisor_.joinable()) supervisor_.join();
}

absl::Status LocalProcessBackend::Start() {
  supervisor_ = std::thread(&LocalProcessBackend::Supervise, this);
  return absl::OkStatus();
}

void LocalProcessBackend::Wait() { replicas_.Wait(); }

void LocalProcessBackend::Cancel(bool immediately) { replicas_.Cancel(immediately); }

void LocalProcessBackend::Supervise() {
  using Outcome = sdk::internal::ReplicaSet::Outcome;
  recorder_->SetState(jobspec::JobState::kPending);
  std::optional<jobspec::RpcStatus> failure;
  const Outcome outcome = replicas_.Supervise(
      [this](int restarts) {
        restarts_ = restarts;
        return StartReplicas();
      },
      failure);
  if (outcome == Outcome::kCancelled) recorder_->SetState(jobspec::JobState::kCancelling);
  replicas_.Stop();
  replicas_.FinishAll();
  netns_.reset();
  etc_files_.clear();
  shared_shm_.reset();
  replicas_.Done(outcome, std::move(failure));
}

std::optional<jobspec::RpcStatus> LocalProcessBackend::MakeJobNetwork() {
  const std::vector<sdk::internal::ReplicaPlan>& plans = config_.plans;
  const auto container =
      std::find_if(plans.begin(), plans.end(),
                   [](const sdk::internal::ReplicaPlan& plan) { return plan.image.has_value(); });
  const auto process =
      std::find_if(plans.begin(), plans.end(),
                   [](const sdk::internal::ReplicaPlan& plan) { return !plan.image.has_value(); });
  if (netns_.has_value() || config_.host_network || container == plans.end()) return std::nullopt;
  if (process != plans.end()) {
    return jobspec::RpcStatus{
        .code = sdk::internal::kCodeInvalidArgument,
        .message = absl::StrCat(
            process->program_field, " runs a local executable on the host network, but ",
            container->program_field,
            " runs a container in a network namespace of the job's own, so they cannot reach "
            "each other: use container images for every pool, or share the host's network "
            "(--host-network)")};
  }
  // With the pid: two job stores (TRAINPKG_HOME) may hold the same job id.
  absl::StatusOr<packager::run::NetworkNamespace> netns = packager::run::NetworkNamespace::Create(
      absl::StrCat("trainpkg-", config_.job_id, "-", ::getpid()));
  if (!netns.ok()) {
    return jobspec::RpcStatus{.code = sdk::internal::kCodeInternal,
                              .message = absl::StrCat("Creating the job's network namespace: ",
                                                      netns.status().message())};
  }
  netns_.emplace(*std::move(netns));
  return std::nullopt;
}

std::optional<jobspec::RpcStatus> LocalProcessBackend::MakeJobEtcFiles() {
  const std::vector<sdk::internal::ReplicaPlan>& plans = config_.plans;
  if (!etc_files_.empty() ||
      std::none_of(plans.begin(), plans.end(),
                   [](const sdk::internal::ReplicaPlan& plan) { return plan.image.has_value(); })) {
    return std::nullopt;
  }
  // Every replica, its own name included, is reached on 127.0.0.1: in the
  // job's namespace as on the host's network.
  std::vector<packager::run::HostEntry> hosts;
  for (const sdk::internal::ReplicaPlan& plan : plans)
    hosts.push_back({plan.ref.Name(), "127.0.0.1"});
  // The host's resolver configuration, as Docker gives it: whole on the
  // host's network; in the job's namespace without loopback nameservers,
  // which would be the namespace's own loopback there. Nothing outside the
  // job is routed from that namespace, so what remains fails at once
  // (ENETUNREACH) rather than after a timeout; names of the job resolve
  // through /etc/hosts.
  absl::StatusOr<std::string> host_resolv_conf =
      packager::run::ReadHostResolvConf(packager::run::kHostResolvConf);
  if (!host_resolv_conf.ok()) {
    return jobspec::RpcStatus{.code = sdk::internal::kCodeInternal,
                              .message = absl::StrCat("Reading the host's resolver configuration: ",
                                                      host_resolv_conf.status().message())};
  }
  const std::string resolv_conf = config_.host_network
                                      ? *host_resolv_conf
                                      : packager::run::ResolvConfWithoutLoopback(*host_resolv_conf);
  const std::filesystem::path prefix = std::filesystem::path(kJobEtcDir) /
                                       absl::StrCat("trainpkg-", config_.job_id, "-", ::getpid());
  for (const auto& [suffix, content] : {std::pair{".hosts", packager::run::HostsFile(hosts)},
                                        std::pair{".resolv.conf", resolv_conf}}) {
    absl::StatusOr<packager::run::TransientFile> file =
        packager::run::TransientFile::Write(prefix.string() + suffix, content);
    if (!file.ok()) {
      etc_files_.clear();
      return jobspec::RpcStatus{.code = sdk::internal::kCodeInternal,
                                .message = absl::StrCat("Writing the job's /etc/", suffix + 1, ": ",
                                                        file.status().message())};
    }
    etc_files_.push_back(*std::move(file));
  }
  return std::nullopt;
}

std::optional<jobspec::RpcStatus> LocalProcessBackend::MakeJobSharedMemory() {
  const std::vector<sdk::internal::ReplicaPlan>& plans = config_.plans;
  const auto containers =
      std::count_if(plans.begin(), plans.end(),
                    [](const sdk::internal::ReplicaPlan& plan) { return plan.image.has_value(); });
  // One /dev/shm for all of the job's containers, as processes on one host
  // have, so shared-memory collectives work between them; one container needs none.
  if (shared_shm_.has_value() || containers < 2) return std::nullopt;
  // On the host's /dev/shm: a tmpfs, as a container's own /dev/shm is.
  absl::StatusOr<packager::run::TransientDirectory> dir = packager::run::TransientDirectory::Create(
      absl::StrCat("/dev/shm/trainpkg-job-", config_.job_id, "-", ::getpid()), 0700);
  if (!dir.ok()) {
    return jobspec::RpcStatus{
        .code = sdk::internal::kCodeInternal,
        .message = absl::StrCat("Making the job's shared /dev/shm: ", dir.status().message())};
  }
  shared_shm_.emplace(*std::move(dir));
  return std::nullopt;
}

std::optional<jobspec::RpcStatus> LocalProcessBackend::StartReplicas() {
  if (std::optional<jobspec::RpcStatus> failure = MakeJobNetwork()) return failure;
  if (std::optional<jobspec::RpcStatus> failure = MakeJobEtcFiles()) return failure;
  if (std::optional<jobspec::RpcStatus> failure = MakeJobSharedMemory()) return failure;
  const std::vector<sdk::internal::ReplicaPlan>& plans = config_.plans;
  // One port per replica, and one more on the chief for PyTorch's
  // rendezvous store (MASTER_PORT, jobspec/cluster_env.h). Held until just
  // before the spawns: no other process takes them meanwhile, and the
  // replicas can bind them.
  absl::StatusOr<PortReservation> ports = PortReservation::Reserve(plans.size() + 1);
  if (!ports.ok()) {
    return jobspec::RpcStatus{
        .code = sdk::internal::kCodeInternal,
        .message = absl::StrCat("Reserving ports for the replicas: ", ports.status().message())};
  }
  absl::StatusOr<std::vector<std::vector<std::string>>> gpus =
      AssignGpus(plans, LocalGpus(config_.environment));
  if (!gpus.ok()) {
    return jobspec::RpcStatus{.code = sdk::internal::kCodeInvalidArgument,
                              .message = std::string(gpus.status().message())};
  }
  absl::StatusOr<std::vector<ReplicaLaunch>> launches =
      sdk::internal::MakeLaunchPlan(sdk::internal::LaunchPlanRequest{
          .spec = &config_.spec,
          .plans = plans,
          .job_id = config_.job_id,
          .project_id = config_.project_id,
          .job_secret = config_.job_secret,
          .environment = &config_.environment,
          .ports = ports->ports(),
          .gpus = *gpus,
          .hosts = {},
          .remote = false,
      });
  if (!launches.ok()) {
    return jobspec::RpcStatus{.code = sdk::internal::kCodeInternal,
                              .message = std::string(launches.status().message())};
  }
  std::vector<sdk::internal::ReplicaSet::Replica> replicas(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    replicas[i].pool = plans[i].ref.pool;
    replicas[i].failure_name = plans[i].ref.Name();
    replicas[i].details.name = plans[i].ref.Name();
    replicas[i].details.address = (*launches)[i].address;
    replicas[i].details.argv = plans[i].argv;
    replicas[i].details.restarts = restarts_;
  }
  replicas_.Reset(std::move(replicas));
  absl::StatusOr<std::vector<PreparedReplica>> prepared = PrepareReplicas(*launches, *gpus);
  if (!prepared.ok()) {
    return jobspec::RpcStatus{.code = sdk::internal::kCodeInvalidArgument,
                              .message = std::string(prepared.status().message())};
  }
  ports->Release();
  return LaunchReplicas(*prepared);
}

absl::StatusOr<std::vector<LocalProcessBackend::PreparedReplica>>
LocalProcessBackend::PrepareReplicas(std::span<ReplicaLaunch> launches,
                                     std::span<const std::vector<std::string>> gpus) {
  using Images = std::map<std::string, JobImage>;
  TP_ASSIGN_OR_RETURN(Images images, PrepareImages());
  std::vector<std::filesystem::path> bind_mounts;
  const std::string& output = config_.spec.base_output_directory;
  // Mounted at the same path, so AIP_MODEL_DIR and the other output paths in
  // the cluster env mean the same inside the container.
  // Mounted at the same path, so AIP_MODEL_DIR and the other output paths in
  // the cluster env mean the same inside the container.
  if (!output.empty() && output.find("://") == std::string::npos) bind_mounts.push_back(output);
  std::vector<PreparedReplica> prepared;
  for (size_t i = 0; i < launches.size(); ++i) {
    const sdk::internal::ReplicaPlan& plan = *launches[i].plan;
    if (!plan.image.has_value()) {
      prepared.push_back({.spec = ProcessSpec{.name = plan.ref.Name(),
                                              .program = plan.program,
                                              .argv = plan.argv,
                                              .env = std::move(launches[i].env)},
                          .container = std::nullopt});
      continue;
    }
    const JobImage& image = images.at(plan.image->ToString());
    absl::StatusOr<RuncContainer> container = PrepareContainerReplica(ContainerReplicaRequest{
        .plan = &plan,
        .image = &image.config,
        .rootfs = image.rootfs,
        .container_id = ContainerId(config_.job_id, plan.ref.Name()),
        .bundle_dir = config_.store.ContainerBundleDir(config_.job_id, plan.ref.Name()),
        .cluster_env = std::move(launches[i].env),
        .bind_mounts = bind_mounts,
        .devices = GpuDevices(gpus[i]),
        .runc_env = config_.environment,
        .network_namespace = netns_.has_value() ? netns_->path() : std::filesystem::path(),
        .readonly_files = {{etc_files_.at(0).path(), "/etc/hosts"},
                           {etc_files_.at(1).path(), "/etc/resolv.conf"}},
        .shared_shm = shared_shm_.has_value() ? shared_shm_->path() : std::filesystem::path(),
    });
    if (!container.ok()) {
      DiscardBundles(prepared);
      return container.status();
    }
    replicas_.at(i).details.container_id = container->id;
    prepared.push_back(
        {.spec = RuncRunSpec(plan.ref.Name(), *container), .container = *std::move(container)});
  }
  return prepared;
}

absl::StatusOr<std::map<std::string, JobImage>> LocalProcessBackend::PrepareImages() const {
  std::map<std::string, JobImage> images;
  sdk::internal::ImageResolver resolver(config_.store.home(), pull_images_);
  packager::unpack::RootfsCache cache(config_.store.home() / "rootfs");
  // Once per image, however many replicas run it.
  for (const sdk::internal::ReplicaPlan& plan : config_.plans) {
    if (!plan.image.has_value() || images.contains(plan.image->ToString())) continue;
    TP_ASSIGN_OR_RETURN(JobImage image, PrepareJobImage(plan, resolver, cache));
    images.emplace(plan.image->ToString(), std::move(image));
  }
  return images;
}

void LocalProcessBackend::DiscardBundles(std::span<const PreparedReplica> replicas) {
  for (const PreparedReplica& replica : replicas) {
    std::error_code ec;
    if (replica.container.has_value())
      std::filesystem::remove_all(replica.container->bundle_dir, ec);
  }
}

std::optional<jobspec::RpcStatus> LocalProcessBackend::LaunchReplicas(
    std::span<const PreparedReplica> prepared) {
  // RUNNING from the first spawn on (Vertex's startTime), so no replica
  // output precedes it and short jobs get a true duration.
  if (replicas_.CancelRequested()) {
    DiscardBundles(prepared);
    return std::nullopt;
  }
  recorder_->SetState(jobspec::JobState::kRunning);
  // Whatever started, however the loop ends, reaches local.json at once.
  absl::Cleanup record = [this] { replicas_.RecordStarted(); };
  for (size_t i = 0; i < prepared.size(); ++i) {
    // A cancel between two starts leaves the rest unstarted; Stop() ends
    // those already running.
    if (replicas_.CancelRequested()) {
      DiscardBundles(prepared.subspan(i));
      return std::nullopt;
    }
    const ProcessSpec& spec = prepared[i].spec;
    std::optional<RuncContainerLauncher> runc;
    if (prepared[i].container.has_value()) runc.emplace(config_.launcher, *prepared[i].container);
    ProcessLauncher& launcher = runc.has_value() ? *runc : *config_.launcher;
    if (absl::Status started = replicas_.StartReplica(i, launcher, spec); !started.ok()) {
      DiscardBundles(prepared.subspan(i + 1));
      return jobspec::RpcStatus{
          .code = sdk::internal::kCodeReplicaFailed,
          .message = absl::StrCat("The replica ", spec.name,
                                  " could not be started: ", started.message())};
    }
  }
  return std::nullopt;
}

}  // namespace trainpkg::sdk::local::internal
