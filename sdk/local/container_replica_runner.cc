#include "sdk/local/container_replica_runner.h"

#include <unistd.h>

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "packager/run/host_resource_ledger.h"
#include "packager/run/hosts_file.h"
#include "packager/run/transient_file.h"
#include "packager/unpack/rootfs_cache.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/task_manifest.h"
#include "sdk/local/internal/container_replica.h"
#include "sdk/local/internal/job_image.h"
#include "sdk/local/internal/runc_container_launcher.h"

namespace trainpkg::sdk::local {
namespace {

// Where the containers' /etc/hosts files live (a tmpfs), as the local engine's.
constexpr char kEtcDir[] = "/run/trainpkg/etc";

// The runc process; keeps the container's /etc/hosts and the ledger's
// record of its bundle until it is reaped.
class ContainerReplicaProcess final : public Process {
 public:
  ContainerReplicaProcess(std::unique_ptr<Process> runc, packager::run::TransientFile hosts,
                          packager::run::LedgerEntry bundle)
      : runc_(std::move(runc)), hosts_(std::move(hosts)), bundle_(std::move(bundle)) {}

  int pid() const override { return runc_->pid(); }
  int output_fd() const override { return runc_->output_fd(); }
  ExitStatus Wait() override { return runc_->Wait(); }
  std::optional<ExitStatus> TryWait() override { return runc_->TryWait(); }
  void SignalGroup(int signal) override { runc_->SignalGroup(signal); }

 private:
  std::unique_ptr<Process> runc_;
  packager::run::TransientFile hosts_;
  packager::run::LedgerEntry bundle_;
};

}  // namespace

absl::StatusOr<ContainerReplicaRun> ReadContainerReplicaManifest(
    const std::filesystem::path& manifest) {
  absl::StatusOr<std::string> text = base::ReadFile(manifest);
  std::error_code ec;
  std::filesystem::remove(manifest, ec);
  if (!text.ok()) return text.status();
  absl::StatusOr<sdk::internal::TaskManifest> parsed = sdk::internal::ParseTaskManifest(*text);
  if (!parsed.ok()) return base::WithContext(parsed.status(), manifest.string());
  if (parsed->replica.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(manifest.string(), ": names no replica (not an SSH backend's manifest)"));
  }
  ContainerReplicaRun run;
  run.job_id = std::move(parsed->job_id);
  run.spec = std::move(parsed->spec);
  run.replica = std::move(parsed->replica);
  run.cluster_env = std::move(parsed->env);
  return run;
}

absl::StatusOr<std::unique_ptr<Process>> StartContainerReplica(
    const ContainerReplicaRun& run, std::shared_ptr<ProcessLauncher> launcher) {
  TP_ASSIGN_OR_RETURN(std::vector<sdk::internal::ReplicaPlan> plans,
                      sdk::internal::PlanReplicas(run.spec));
  const sdk::internal::ReplicaPlan* plan = nullptr;
  for (const sdk::internal::ReplicaPlan& candidate : plans) {
    if (candidate.ref.Name() == run.replica) plan = &candidate;
  }
  if (plan == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("the job has no replica \"", run.replica, "\""));
  }
  if (!plan->image.has_value() || plan->python_packages.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(plan->program_field, ": replica ", run.replica,
                                                   " does not run a container image"));
  }
  sdk::internal::ImageResolver resolver(run.home,
                                        sdk::internal::RegistryImagePuller(run.environment));
  packager::unpack::RootfsCache cache(run.home / "rootfs");
  TP_ASSIGN_OR_RETURN(internal::JobImage image, internal::PrepareJobImage(*plan, resolver, cache));

  // With the pid: two jobs of one id (two supervisors' job stores) may put
  // the same replica on this host.
  const std::string id = absl::StrCat("trainpkg-", run.job_id, "-", run.replica, "-", ::getpid());
  const std::filesystem::path bundle_dir = run.home / "containers" / id;
  TP_ASSIGN_OR_RETURN(
      packager::run::LedgerEntry bundle_entry,
      packager::run::RecordHostResource({.kind = packager::run::HostResourceKind::kDirectory,
                                         .name = bundle_dir.string(),
                                         .runtime = ""}));
  const std::vector<packager::run::HostEntry> names = {{run.replica, "127.0.0.1"}};
  TP_ASSIGN_OR_RETURN(
      packager::run::TransientFile hosts,
      packager::run::TransientFile::Write(std::filesystem::path(kEtcDir) / (id + ".hosts"),
                                          packager::run::HostsFile(names)));
  std::error_code ec;
  std::vector<std::filesystem::path> bind_mounts;
  const std::string& output = run.spec.base_output_directory;
  if (!output.empty() && output.find("://") == std::string::npos) {
    std::filesystem::create_directories(output, ec);
    bind_mounts.push_back(output);
  }
  // The host's resolver configuration, as Docker's host network gives it
  // (the file itself when /etc/resolv.conf is a link).
  std::filesystem::path resolv_conf = std::filesystem::canonical("/etc/resolv.conf", ec);
  if (ec) resolv_conf = "/etc/resolv.conf";
  TP_ASSIGN_OR_RETURN(
      internal::RuncContainer container,
      internal::PrepareContainerReplica(internal::ContainerReplicaRequest{
          .plan = plan,
          .image = &image.config,
          .rootfs = image.rootfs,
          .container_id = id,
          .bundle_dir = bundle_dir,
          .cluster_env = run.cluster_env,
          .bind_mounts = bind_mounts,
          .devices = {},
          .runc_env = run.environment,
          .network_namespace = {},
          .readonly_files = {{hosts.path(), "/etc/hosts"}, {resolv_conf, "/etc/resolv.conf"}},
          .shared_shm = {},
      }));
  internal::RuncContainerLauncher runc(std::move(launcher), container);
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Process> process,
                      runc.Start(internal::RuncRunSpec(run.replica, container)));
  return std::make_unique<ContainerReplicaProcess>(std::move(process), std::move(hosts),
                                                   std::move(bundle_entry));
}

}  // namespace trainpkg::sdk::local
