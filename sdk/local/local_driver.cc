#include "sdk/local/local_driver.h"

#include <memory>
#include <utility>

#include "base/environment.h"
#include "base/status_macros.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/internal/supervised_job.h"
#include "sdk/internal/supervised_record.h"
#include "sdk/local/internal/local_process_backend.h"
#include "sdk/local/internal/runc_container_launcher.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::local {
namespace {

class Driver final : public sdk::internal::SupervisedDriver {
 public:
  JobBackendKind kind() const override { return JobBackendKind::kLocal; }
  std::string_view name() const override { return "local"; }

  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(
      jobspec::CustomJob job, CustomJobOptions options,
      sdk::internal::LineStream* log) const override {
    TP_RETURN_IF_ERROR(sdk::internal::PlanReplicas(job.job_spec).status());
    return sdk::internal::PrepareSupervisedJob(
        std::move(job), std::move(options), log,
        [](sdk::internal::SupervisedJobConfig config,
           std::shared_ptr<sdk::internal::JobRecorder> recorder) {
          // The composition root: replicas pull with registry/'s client and
          // the job's docker credentials.
          sdk::internal::ImagePuller pull = sdk::internal::RegistryImagePuller(config.environment);
          return std::make_unique<internal::LocalProcessBackend>(
              std::move(config), std::move(recorder), std::move(pull));
        });
  }

  // Besides the replicas' process groups, each container-mode replica's runc
  // container: its processes are in a session of their own, so killing
  // runc's group does not stop them.
  bool StopOrphan(const JobStore& store, const JobInfo& info) const override {
    const bool running = SupervisedDriver::StopOrphan(store, info);
    for (const ReplicaDetails& replica : info.local.replicas) {
      if (replica.pgid <= 0 || replica.container_id.empty()) continue;
      internal::DeleteRuncContainer(
          *DefaultProcessLauncher(),
          internal::RuncContainer{.id = replica.container_id,
                                  .bundle_dir = store.ContainerBundleDir(info.id, replica.name),
                                  .env = base::SnapshotProcessEnvironment()});
    }
    return running;
  }

  // The last row: a record no other backend claims is a local job's.
  bool ClaimsRecord(const JobStore&, std::string_view) const override { return true; }
};

}  // namespace

const BackendDriver& LocalDriver() {
  static const Driver driver;
  return driver;
}

}  // namespace trainpkg::sdk::local
