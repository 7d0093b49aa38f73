#include "sdk/cli/job_view.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/job_state.h"
#include "nlohmann/json.hpp"

namespace trainpkg::cli {
namespace {

constexpr size_t kColumns = 6;
using Row = std::array<std::string, kColumns>;

std::string Created(const jobspec::CustomJob& job) {
  if (!job.create_time.has_value()) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", *job.create_time, absl::LocalTimeZone());
}

std::string Duration(const jobspec::CustomJob& job, absl::Time now) {
  if (!job.start_time.has_value()) return "-";
  return FormatElapsed(job.end_time.value_or(now) - *job.start_time);
}

}  // namespace

std::string FormatElapsed(absl::Duration d) {
  if (d < absl::Seconds(1)) return absl::StrCat(absl::ToInt64Milliseconds(d), "ms");
  if (d < absl::Minutes(1)) return absl::StrFormat("%.1fs", absl::ToDoubleSeconds(d));
  int64_t seconds = absl::ToInt64Seconds(d);
  if (d < absl::Hours(1)) return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
  return absl::StrFormat("%dh%02dm", seconds / 3600, seconds / 60 % 60);
}

std::string FormatJobTable(const std::vector<sdk::JobInfo>& jobs, absl::Time now) {
  std::vector<Row> rows = {{"ID", "DISPLAY NAME", "STATE", "CREATED", "DURATION", "BACKEND"}};
  for (const sdk::JobInfo& info : jobs) {
    rows.push_back({info.id, info.job.display_name,
                    std::string(jobspec::JobStateName(info.job.state)), Created(info.job),
                    Duration(info.job, now), info.backend.empty() ? "local" : info.backend});
  }
  std::array<size_t, kColumns> widths{};
  for (const Row& row : rows) {
    for (size_t c = 0; c < kColumns; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const Row& row : rows) {
    for (size_t c = 0; c + 1 < kColumns; ++c) {
      absl::StrAppend(&out, row[c], std::string(widths[c] - row[c].size() + 2, ' '));
    }
    absl::StrAppend(&out, row[kColumns - 1], "\n");
  }
  return out;
}

std::string FormatJobListJson(const std::vector<sdk::JobInfo>& jobs) {
  nlohmann::json out = nlohmann::json::array();
  for (const sdk::JobInfo& info : jobs) out.push_back(jobspec::CustomJobToJson(info.job));
  return out.dump(2) + "\n";
}

std::string FormatJobDescription(const sdk::JobInfo& info, const sdk::JobStore& store) {
  std::string out = jobspec::FormatCustomJobJson(info.job);
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (info.vertex.has_value()) {
    absl::StrAppend(&out, "\nVertex AI:\n  Resource name: ", info.vertex->name,
                    "\n  Endpoint: ", info.vertex->endpoint,
                    "\n  Job directory: ", info.job_dir.string(),
                    "\n  Replica logs: in Cloud Logging\n");
    return out;
  }
  if (info.k8s.has_value()) {
    const sdk::k8s::ObjectRef& w = info.k8s->workload;
    absl::StrAppend(&out, "\nKubernetes:\n  Workload: ", w.kind, " ", w.kubernetes_namespace, "/",
                    w.name, " (", w.api_version, ")\n  Kubeconfig: ", info.k8s->kubeconfig,
                    ", context ", info.k8s->context, "\n  Job directory: ", info.job_dir.string(),
                    "\n  Replica logs: the pods' logs (trainpkg jobs logs ", info.id, ")\n");
    return out;
  }
  absl::StrAppend(&out, "\nLocal details:\n  Job directory: ", info.job_dir.string(), "\n");
  if (info.local.supervisor.pid != 0) {
    absl::StrAppend(&out, "  Supervisor: pid ", info.local.supervisor.pid,
                    info.supervisor_running ? " (running)" : " (exited)", "\n");
  }
  if (!info.local.replicas.empty()) absl::StrAppend(&out, "  Replicas:\n");
  for (const sdk::ReplicaDetails& replica : info.local.replicas) {
    std::string status = replica.exit_status.has_value()
                             ? sdk::DescribeExitStatus(*replica.exit_status)
                             : std::string("running");
    absl::StrAppend(&out, "    ", replica.name, ": pid ", replica.pid, ", ", replica.address, ", ",
                    status, "\n      command: ", absl::StrJoin(replica.argv, " "),
                    "\n      log: ", store.LogFile(info.id, replica.name).string(), "\n");
  }
  return out;
}

}  // namespace trainpkg::cli
