// A backend that runs nothing, for tests: the whole of what a new backend
// adds — this folder and one row of the driver table (here put in a row with
// sdk::ScopedBackendDriver). A job succeeds when waited for, unless
// cancelled first; it is recorded in the job store with a fake.json of its
// own, so JobClient and `trainpkg jobs` find it through the table.
#ifndef TRAINPKG_TESTS_SDK_FAKE_BACKEND_FAKE_DRIVER_H_
#define TRAINPKG_TESTS_SDK_FAKE_BACKEND_FAKE_DRIVER_H_

#include "sdk/backend_driver.h"

namespace trainpkg::sdk::fake {

// The driver, in the row of `kind`. Job ids must start with "fake-"; an
// empty one becomes "fake-1", "fake-2", ...
class FakeDriver final : public BackendDriver {
 public:
  explicit FakeDriver(JobBackendKind kind) : kind_(kind) {}

  JobBackendKind kind() const override { return kind_; }
  std::string_view name() const override { return "fake"; }
  std::optional<RemotePlace> remote() const override {
    return RemotePlace{.platform = "the fake backend", .source = "the fake"};
  }
  absl::Status CheckJobId(std::string_view id) const override;
  absl::StatusOr<std::unique_ptr<BackendJob>> Prepare(jobspec::CustomJob job,
                                                      CustomJobOptions options,
                                                      internal::LineStream* log) const override;
  bool ClaimsRecord(const JobStore& store, std::string_view id) const override;
  absl::Status ReadRecord(const JobStore& store, JobInfo& info) const override;
  bool StopOrphan(const JobStore&, const JobInfo&) const override { return false; }
  absl::StatusOr<jobspec::CustomJob> Refresh(const JobStore& store, const JobInfo& info,
                                             const RecordAccess& access) const override;
  absl::StatusOr<jobspec::CustomJob> Cancel(const JobStore& store, const JobInfo& info,
                                            const RecordAccess& access,
                                            absl::Duration timeout) const override;
  absl::Status CheckLogs(const JobInfo& info, const JobLogsOptions& options) const override;
  absl::Status WriteLogs(const JobStore& store, const JobInfo& info, const JobLogsOptions& options,
                         std::ostream& out) const override;

 private:
  const JobBackendKind kind_;
};

}  // namespace trainpkg::sdk::fake

#endif  // TRAINPKG_TESTS_SDK_FAKE_BACKEND_FAKE_DRIVER_H_
