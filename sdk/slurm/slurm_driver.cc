#include "sdk/slurm/slurm_driver.h"

#include <memory>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "base/bounded_file.h"
#include "base/status_macros.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/supervised_job.h"
#include "sdk/internal/supervised_record.h"
#include "sdk/slurm/internal/recorded_job_cancel.h"
#include "sdk/slurm/internal/slurm_backend.h"
#include "sdk/slurm/internal/slurm_job_check.h"
#include "sdk/slurm/internal/slurm_job_files.h"

namespace trainpkg::sdk::slurm {
namespace {

using sdk::internal::LineStream;

class Driver final : public sdk::internal::SupervisedDriver {
 public:
  JobBackendKind kind() const override { return JobBackendKind::kSlurm; }
  std::string_view name() const override { return "slurm"; }

  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                      CustomJobOptions options,
                                                      LineStream* log) const override {
    TP_ASSIGN_OR_RETURN(std::vector<sdk::internal::ReplicaPlan> plans,
                        sdk::internal::PlanReplicas(job.job_spec));
    // Before anything is recorded: a machine type Slurm cannot size, or a
    // missing task launcher, fails the submission rather than the queued job.
    TP_RETURN_IF_ERROR(internal::CheckSlurmJob(job.job_spec, plans, options.slurm));
    SlurmBackendOptions slurm = options.slurm;
    return sdk::internal::PrepareSupervisedJob(
        std::move(job), std::move(options), log,
        [slurm](sdk::internal::SupervisedJobConfig config,
                std::shared_ptr<sdk::internal::JobRecorder> recorder) {
          return std::make_unique<internal::SlurmBackend>(
              internal::SlurmBackendConfig{.job = std::move(config), .options = slurm},
              std::move(recorder));
        });
  }

  // A job whose record has <job dir>/slurm/ (internal/slurm_job_files.h).
  bool ClaimsRecord(const JobStore& store, std::string_view id) const override {
    std::error_code ec;
    return std::filesystem::exists(store.JobDir(id) / "slurm", ec);
  }
  absl::Status ReadRecord(const JobStore& store, JobInfo& info) const override {
    absl::StatusOr<std::string> slurm_id = base::ReadRegularFile(
        internal::SlurmJobFiles(info.job_dir).slurm_job_id(),
        base::BoundedReadOptions{.max_bytes = 64, .what = "a Slurm job id file"});
    if (slurm_id.ok()) info.slurm_job_id = std::string(absl::StripAsciiWhitespace(*slurm_id));
    return SupervisedDriver::ReadRecord(store, info);
  }
  // The Slurm job runs on without its supervisor: scancel it too.
  bool StopOrphan(const JobStore& store, const JobInfo& info) const override {
    bool running = SupervisedDriver::StopOrphan(store, info);
    return internal::CancelRecordedSlurmJob(info.job_dir) || running;
  }
};

}  // namespace

const BackendDriver& SlurmDriver() {
  static const Driver driver;
  return driver;
}

}  // namespace trainpkg::sdk::slurm
