#include "sdk/custom_job.h"

#include <utility>

#include "base/check.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "jobspec/validation.h"
#include "sdk/backend_table.h"
#include "sdk/internal/driver_connection.h"

namespace trainpkg::sdk {

// The job is validated once here for every backend; the backend's driver
// (sdk/backend_table.h) checks what is its own and prepares the job.
absl::StatusOr<CustomJob> CustomJob::Create(jobspec::CustomJob job, CustomJobOptions options) {
  TP_RETURN_IF_ERROR(jobspec::ValidateCustomJob(job));
  if (!options.environment.has_value()) options.environment = base::SnapshotProcessEnvironment();
  const BackendDriver& driver = BackendDriverFor(options.backend);
  TP_ASSIGN_OR_RETURN(std::shared_ptr<internal::DriverConnection> connection,
                      internal::DriverConnection::Create(driver, std::move(job), std::move(options)));
  return CustomJob(std::move(connection));
}

CustomJob::CustomJob(std::shared_ptr<CustomJobConnection> connection)
    : connection_(std::move(connection)) {
  TP_CHECK(connection_ != nullptr, "a CustomJob needs a connection");
}

absl::StatusOr<jobspec::CustomJob> CustomJob::Run() {
  TP_RETURN_IF_ERROR(Submit());
  return Wait();
}

absl::Status CustomJob::Submit() { return connection_->Submit(); }
absl::StatusOr<jobspec::CustomJob> CustomJob::Wait() { return connection_->Wait(); }
void CustomJob::Cancel() { connection_->Cancel(); }
void CustomJob::Kill() { connection_->Kill(); }
jobspec::CustomJob CustomJob::job() const { return connection_->job(); }
const std::string& CustomJob::job_id() const { return connection_->job_id(); }
const std::string& CustomJob::resource_name() const { return connection_->resource_name(); }
const std::filesystem::path& CustomJob::job_dir() const { return connection_->job_dir(); }

}  // namespace trainpkg::sdk
