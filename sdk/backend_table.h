// The table of backend drivers (sdk/backend_driver.h), one row per
// JobBackendKind. Every place that depends on where a job runs looks its
// driver up here; adding a backend is its folder and one row in
// backend_table.cc.
#ifndef TRAINPKG_SDK_BACKEND_TABLE_H_
#define TRAINPKG_SDK_BACKEND_TABLE_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sdk/backend_driver.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk {

// The driver of `kind`. Every JobBackendKind has one.
const BackendDriver& BackendDriverFor(JobBackendKind kind);

// The driver named `name` ("local", "vertex", "k8s", "slurm", "ssh"); InvalidArgument
// listing the names otherwise.
absl::StatusOr<const BackendDriver*> BackendDriverNamed(std::string_view name);

// Every driver, in the order records are claimed (the local one last).
std::vector<const BackendDriver*> BackendDrivers();

// The driver of recorded job `id`: the first row that claims its record.
const BackendDriver& RecordedJobDriver(const JobStore& store, std::string_view id);

// The driver of a job JobClient read: the one named info.backend.
const BackendDriver& JobDriver(const JobInfo& info);

// Puts `driver` in the row of driver.kind() until destroyed, for this whole
// process: how a test runs CustomJob, JobClient or the CLI on a fake backend.
// Not owned; must outlive this. Scopes nest (destroy them in reverse order).
class ScopedBackendDriver {
 public:
  explicit ScopedBackendDriver(const BackendDriver& driver);
  ~ScopedBackendDriver();
  ScopedBackendDriver(const ScopedBackendDriver&) = delete;
  ScopedBackendDriver& operator=(const ScopedBackendDriver&) = delete;

 private:
  const JobBackendKind kind_;
  const BackendDriver* const previous_;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_BACKEND_TABLE_H_
