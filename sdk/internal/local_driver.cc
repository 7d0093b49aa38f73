#include "sdk/internal/local_driver.h"

#include <memory>
#include <utility>

#include "base/status_macros.h"
#include "sdk/internal/local_process_backend.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/supervised_job.h"
#include "sdk/internal/supervised_record.h"

namespace trainpkg::sdk::internal {
namespace {

class Driver final : public SupervisedDriver {
 public:
  JobBackendKind kind() const override { return JobBackendKind::kLocal; }
  std::string_view name() const override { return "local"; }

  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                      CustomJobOptions options,
                                                      LineStream* log) const override {
    TP_RETURN_IF_ERROR(PlanReplicas(job.job_spec).status());
    return PrepareSupervisedJob(
        std::move(job), std::move(options), log,
        [](LocalProcessBackendConfig config, std::shared_ptr<JobRecorder> recorder) {
          return std::make_unique<LocalProcessBackend>(std::move(config), std::move(recorder));
        });
  }

  // The last row: a record no other backend claims is a local job's.
  bool ClaimsRecord(const JobStore&, std::string_view) const override { return true; }
};

}  // namespace

const BackendDriver& LocalDriver() {
  static const Driver driver;
  return driver;
}

}  // namespace trainpkg::sdk::internal
