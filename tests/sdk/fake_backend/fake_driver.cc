#include "tests/sdk/fake_backend/fake_driver.h"

#include <atomic>
#include <fstream>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "jobspec/job_state.h"
#include "sdk/internal/line_stream.h"

namespace trainpkg::sdk::fake {
namespace {

std::filesystem::path RecordFile(const JobStore& store, std::string_view id) {
  return store.JobDir(id) / "fake.json";
}

class FakeJob final : public BackendJob {
 public:
  FakeJob(jobspec::CustomJob job, JobStore store, std::string id, internal::LineStream* log)
      : store_(std::move(store)),
        id_(std::move(id)),
        name_(absl::StrCat("fake/", id_)),
        job_dir_(store_.JobDir(id_)),
        log_(log),
        job_(std::move(job)) {
    job_.name = name_;
  }

  absl::Status Start() override {
    TP_RETURN_IF_ERROR(store_.CreateJobDir(id_));
    std::ofstream(RecordFile(store_, id_)) << "{}\n";
    log_->WriteLine("", absl::StrCat("Fake job created: ", name_));
    return Record(jobspec::JobState::kRunning);
  }
  absl::StatusOr<jobspec::CustomJob> Wait() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (jobspec::IsTerminal(job_.state)) return job_;
    }
    TP_RETURN_IF_ERROR(Record(jobspec::JobState::kSucceeded));
    return Current();
  }
  jobspec::CustomJob Current() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return job_;
  }
  void Cancel(bool) override { (void)Record(jobspec::JobState::kCancelled); }
  const std::string& id() const override { return id_; }
  const std::string& name() const override { return name_; }
  const std::filesystem::path& job_dir() const override { return job_dir_; }

 private:
  absl::Status Record(jobspec::JobState state) {
    std::lock_guard<std::mutex> lock(mu_);
    job_.state = state;
    return store_.WriteJob(id_, job_);
  }

  const JobStore store_;
  const std::string id_;
  const std::string name_;
  const std::filesystem::path job_dir_;
  internal::LineStream* const log_;
  mutable std::mutex mu_;
  jobspec::CustomJob job_;  // guarded by mu_
};

}  // namespace

absl::Status FakeDriver::CheckJobId(std::string_view id) const {
  if (id.starts_with("fake-")) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("\"", std::string(id), "\" does not start with fake-"));
}

absl::StatusOr<std::unique_ptr<BackendJob>> FakeDriver::Prepare(jobspec::CustomJob job,
                                                                CustomJobOptions options,
                                                                internal::LineStream* log) const {
  static std::atomic<int> next{1};
  std::string id = options.job_id.empty() ? absl::StrCat("fake-", next++) : options.job_id;
  if (absl::Status status = CheckJobId(id); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("job_id: ", status.message()));
  }
  return std::make_unique<FakeJob>(std::move(job), JobStore(options.home), std::move(id), log);
}

bool FakeDriver::ClaimsRecord(const JobStore& store, std::string_view id) const {
  std::error_code ec;
  return std::filesystem::exists(RecordFile(store, id), ec);
}

absl::Status FakeDriver::ReadRecord(const JobStore&, JobInfo&) const { return absl::OkStatus(); }

absl::StatusOr<jobspec::CustomJob> FakeDriver::Refresh(const JobStore&, const JobInfo& info,
                                                       const RecordAccess&) const {
  return info.job;
}

absl::StatusOr<jobspec::CustomJob> FakeDriver::Cancel(const JobStore& store, const JobInfo& info,
                                                      const RecordAccess&, absl::Duration) const {
  if (jobspec::IsTerminal(info.job.state)) return info.job;
  jobspec::CustomJob job = info.job;
  job.state = jobspec::JobState::kCancelled;
  TP_RETURN_IF_ERROR(store.WriteJob(info.id, job));
  return job;
}

absl::Status FakeDriver::CheckLogs(const JobInfo& info, const JobLogsOptions&) const {
  return absl::FailedPreconditionError(absl::StrCat("job ", info.id, " ran nothing: no logs"));
}

absl::Status FakeDriver::WriteLogs(const JobStore&, const JobInfo& info,
                                   const JobLogsOptions& options, std::ostream&) const {
  return CheckLogs(info, options);
}

}  // namespace trainpkg::sdk::fake
