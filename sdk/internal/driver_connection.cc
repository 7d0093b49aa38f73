#include "sdk/internal/driver_connection.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "jobspec/job_state.h"

namespace trainpkg::sdk::internal {

absl::StatusOr<std::shared_ptr<DriverConnection>> DriverConnection::Create(
    const BackendDriver& driver, jobspec::CustomJob job, CustomJobOptions options) {
  auto connection = std::make_shared<DriverConnection>(options.log_stream);
  TP_ASSIGN_OR_RETURN(connection->job_,
                      driver.Prepare(std::move(job), std::move(options), &connection->log_));
  return connection;
}

absl::Status DriverConnection::Submit() {
  std::lock_guard<std::mutex> lock(mu_);
  if (submitted_) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_->id(), " was already submitted"));
  }
  log_.WriteLine("", "Creating CustomJob");
  TP_RETURN_IF_ERROR(job_->Start());
  submitted_ = true;
  return absl::OkStatus();
}

bool DriverConnection::submitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return submitted_;
}

jobspec::CustomJob DriverConnection::job() const {
  std::lock_guard<std::mutex> lock(mu_);  // not while Start() runs
  return job_->Current();
}

absl::StatusOr<jobspec::CustomJob> DriverConnection::Wait() {
  if (!submitted()) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_->id(), " was not submitted"));
  }
  return job_->Wait();
}

void DriverConnection::Stop(bool immediately) {
  if (!submitted() || jobspec::IsTerminal(job_->Current().state)) return;
  // Once, however often Cancel is called (a second Ctrl-C, say).
  if (!cancel_logged_.exchange(true)) {
    log_.WriteLine("", absl::StrCat("Cancelling CustomJob run: ", job_->name()));
  }
  job_->Cancel(immediately);
}

}  // namespace trainpkg::sdk::internal
