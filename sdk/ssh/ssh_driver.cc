#include "sdk/ssh/ssh_driver.h"

#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/supervised_job.h"
#include "sdk/internal/supervised_record.h"
#include "sdk/ssh/host_list.h"
#include "sdk/ssh/internal/ssh_backend.h"

namespace trainpkg::sdk::ssh {
namespace {

using sdk::internal::LineStream;

constexpr char kDefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

class Driver final : public sdk::internal::SupervisedDriver {
 public:
  JobBackendKind kind() const override { return JobBackendKind::kSsh; }
  std::string_view name() const override { return "ssh"; }

  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                      CustomJobOptions options,
                                                      LineStream* log) const override {
    TP_ASSIGN_OR_RETURN(std::vector<sdk::internal::ReplicaPlan> plans,
                        sdk::internal::PlanReplicas(job.job_spec));
    for (const sdk::internal::ReplicaPlan& plan : plans) {
      if (plan.python_packages.has_value()) {
        return absl::UnimplementedError(absl::StrCat(
            plan.program_field,
            ": the ssh backend runs \"local:\" executables and container images; a "
            "pythonPackageSpec pool is not built over SSH (build an image with the packages, or "
            "use --backend local or vertex)"));
      }
    }
    // Before anything is recorded: too few slots, or no ssh, fail the submission.
    TP_ASSIGN_OR_RETURN(std::vector<size_t> placement,
                        PlaceReplicas(options.ssh.hosts, plans.size()));
    auto path = options.environment->find("PATH");
    std::optional<std::filesystem::path> ssh = base::FindInPath(
        options.ssh.ssh_program, path == options.environment->end() ? kDefaultPath : path->second);
    if (!ssh.has_value()) {
      return absl::NotFoundError(
          absl::StrCat("the ssh program \"", options.ssh.ssh_program,
                       "\" is not on PATH (apt-get install openssh-client)"));
    }
    return sdk::internal::PrepareSupervisedJob(
        std::move(job), options, log,
        [ssh_options = options.ssh, placement = std::move(placement), program = *ssh](
            sdk::internal::SupervisedJobConfig job_config,
            std::shared_ptr<sdk::internal::JobRecorder> recorder) {
          return std::make_unique<internal::SshBackend>(
              internal::SshBackendConfig{.job = std::move(job_config),
                                         .options = ssh_options,
                                         .placement = placement,
                                         .ssh = program},
              std::move(recorder));
        });
  }

  // A job whose record has <job dir>/ssh/ (internal/ssh_backend.h). Its
  // replicas' recorded pids are their ssh clients here: StopOrphan ending
  // them closes their channels, and each host's wrapper stops its replica.
  bool ClaimsRecord(const JobStore& store, std::string_view id) const override {
    std::error_code ec;
    return std::filesystem::exists(store.JobDir(id) / "ssh", ec);
  }
};

}  // namespace

const BackendDriver& SshDriver() {
  static const Driver driver;
  return driver;
}

}  // namespace trainpkg::sdk::ssh
