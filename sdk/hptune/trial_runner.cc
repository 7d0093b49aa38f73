#include "sdk/hptune/trial_runner.h"

#include <utility>

#include "base/status_macros.h"

namespace trainpkg::sdk::hptune {
namespace {

class CustomJobTrial final : public RunningTrial {
 public:
  explicit CustomJobTrial(CustomJob job) : job_(std::move(job)) {}
  ~CustomJobTrial() override {
    if (!jobspec::IsTerminal(job_.job().state)) {
      job_.Cancel();
      (void)job_.Wait();
    }
  }

  jobspec::CustomJob Job() const override { return job_.job(); }
  void Cancel() override { job_.Cancel(); }
  jobspec::CustomJob Wait() override {
    absl::StatusOr<jobspec::CustomJob> done = job_.Wait();
    if (done.ok()) return *std::move(done);
    jobspec::CustomJob failed = job_.job();
    failed.state = jobspec::JobState::kFailed;
    failed.error = jobspec::RpcStatus{.code = static_cast<int32_t>(done.status().code()),
                                      .message = std::string(done.status().message())};
    return failed;
  }

 private:
  CustomJob job_;
};

class CustomJobTrialRunner final : public TrialRunner {
 public:
  explicit CustomJobTrialRunner(CustomJobOptions options) : options_(std::move(options)) {}

  absl::StatusOr<std::unique_ptr<RunningTrial>> Start(const jobspec::CustomJob& job) override {
    CustomJobOptions options = options_;
    // Every trial is a job of its own: a fixed id would make the second collide.
    options.job_id.clear();
    TP_ASSIGN_OR_RETURN(CustomJob custom_job, CustomJob::Create(job, std::move(options)));
    TP_RETURN_IF_ERROR(custom_job.Submit());
    return std::make_unique<CustomJobTrial>(std::move(custom_job));
  }

 private:
  CustomJobOptions options_;
};

}  // namespace

std::unique_ptr<TrialRunner> MakeCustomJobTrialRunner(CustomJobOptions options) {
  return std::make_unique<CustomJobTrialRunner>(std::move(options));
}

}  // namespace trainpkg::sdk::hptune
