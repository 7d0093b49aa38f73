#include "sdk/backend_table.h"

#include <array>
#include <mutex>

#include "base/check.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "sdk/k8s/k8s_driver.h"
#include "sdk/local/local_driver.h"
#include "sdk/slurm/slurm_driver.h"
#include "sdk/ssh/ssh_driver.h"
#include "sdk/vertex/vertex_driver.h"

namespace trainpkg::sdk {
namespace {

struct Row {
  JobBackendKind kind;
  const BackendDriver* driver;
};

// The rows, in the order records are claimed: the local backend has no
// record file of its own, so it takes what no other row claims.
std::array<Row, 5>& Rows() {
  static std::array<Row, 5> rows = {{
      {JobBackendKind::kVertex, &vertex::VertexDriver()},
      {JobBackendKind::kK8s, &k8s::K8sDriver()},
      {JobBackendKind::kSlurm, &slurm::SlurmDriver()},
      {JobBackendKind::kSsh, &ssh::SshDriver()},
      {JobBackendKind::kLocal, &local::LocalDriver()},
  }};
  return rows;
}

std::mutex& RowsMutex() {
  static std::mutex mu;
  return mu;
}

// REQUIRES: RowsMutex() held.
Row& RowOf(JobBackendKind kind) {
  for (Row& row : Rows()) {
    if (row.kind == kind) return row;
  }
  TP_CHECK(false, "JobBackendKind {} has no row in the backend table", static_cast<int>(kind));
  std::abort();
}

}  // namespace

const BackendDriver& BackendDriverFor(JobBackendKind kind) {
  std::lock_guard<std::mutex> lock(RowsMutex());
  return *RowOf(kind).driver;
}

absl::StatusOr<const BackendDriver*> BackendDriverNamed(std::string_view name) {
  std::vector<std::string_view> names;
  for (const BackendDriver* driver : BackendDrivers()) {
    if (driver->name() == name) return driver;
    names.push_back(driver->name());
  }
  return absl::InvalidArgumentError(
      fmt::format("backend \"{}\" is not one of {}", name, fmt::join(names, ", ")));
}

std::vector<const BackendDriver*> BackendDrivers() {
  std::lock_guard<std::mutex> lock(RowsMutex());
  std::vector<const BackendDriver*> drivers;
  for (const Row& row : Rows()) drivers.push_back(row.driver);
  return drivers;
}

const BackendDriver& RecordedJobDriver(const JobStore& store, std::string_view id) {
  // A copy taken under the lock: ClaimsRecord reads files, and a test's
  // ScopedBackendDriver may swap a row meanwhile.
  std::vector<const BackendDriver*> drivers = BackendDrivers();
  for (const BackendDriver* driver : drivers) {
    if (driver->ClaimsRecord(store, id)) return *driver;
  }
  return *drivers.back();
}

const BackendDriver& JobDriver(const JobInfo& info) {
  absl::StatusOr<const BackendDriver*> driver = BackendDriverNamed(info.backend);
  TP_CHECK(driver.ok(), "job {}: {}", info.id, std::string(driver.status().message()));
  return **driver;
}

ScopedBackendDriver::ScopedBackendDriver(const BackendDriver& driver)
    : kind_(driver.kind()), previous_([&] {
        std::lock_guard<std::mutex> lock(RowsMutex());
        Row& row = RowOf(driver.kind());
        const BackendDriver* previous = row.driver;
        row.driver = &driver;
        return previous;
      }()) {}

ScopedBackendDriver::~ScopedBackendDriver() {
  std::lock_guard<std::mutex> lock(RowsMutex());
  RowOf(kind_).driver = previous_;
}

}  // namespace trainpkg::sdk
