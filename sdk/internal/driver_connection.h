// The CustomJobConnection of a job on a backend driver (sdk/backend_driver.h):
// what every backend shares behind CustomJob — the state lines' stream, the
// "Creating CustomJob" and "Cancelling CustomJob run" lines, submitting once,
// and no waiting or cancelling before Submit().
#ifndef TRAINPKG_SDK_INTERNAL_DRIVER_CONNECTION_H_
#define TRAINPKG_SDK_INTERNAL_DRIVER_CONNECTION_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/backend_driver.h"
#include "sdk/custom_job.h"
#include "sdk/custom_job_connection.h"
#include "sdk/internal/line_stream.h"

namespace trainpkg::sdk::internal {

class DriverConnection final : public CustomJobConnection {
 public:
  // `driver`.Prepare(job, options): its errors, else the connection.
  // REQUIRES: options.environment set.
  static absl::StatusOr<std::shared_ptr<DriverConnection>> Create(const BackendDriver& driver,
                                                                  jobspec::CustomJob job,
                                                                  CustomJobOptions options);

  explicit DriverConnection(std::ostream* log_stream) : log_(log_stream) {}

  absl::Status Submit() override;
  absl::StatusOr<jobspec::CustomJob> Wait() override;
  void Cancel() override { Stop(/*immediately=*/false); }
  void Kill() override { Stop(/*immediately=*/true); }
  jobspec::CustomJob job() const override;
  const std::string& job_id() const override { return job_->id(); }
  const std::string& resource_name() const override { return job_->name(); }
  const std::filesystem::path& job_dir() const override { return job_->job_dir(); }

 private:
  void Stop(bool immediately);
  bool submitted() const;

  LineStream log_;  // first: the backend job writes to it until destroyed
  std::atomic<bool> cancel_logged_{false};
  mutable std::mutex mu_;
  bool submitted_ = false;  // guarded by mu_; set once Start() succeeded
  std::unique_ptr<BackendJob> job_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_DRIVER_CONNECTION_H_
