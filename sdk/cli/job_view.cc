#include "sdk/cli/job_view.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/terminal_text.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/job_state.h"
#include "nlohmann/json.hpp"

namespace trainpkg::cli {
namespace {

using base::TerminalSafe;
using base::TextLayout;

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
    rows.push_back({TerminalSafe(info.id), TerminalSafe(info.job.display_name),
                    std::string(jobspec::JobStateName(info.job.state)), Created(info.job),
                    Duration(info.job, now),
                    info.backend.empty() ? "local" : TerminalSafe(info.backend)});
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
  return TerminalSafe(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace),
                      TextLayout::kJson) +
         "\n";
}

std::string FormatJobDescription(const sdk::JobInfo& info, const sdk::JobStore& store) {
  std::string out = TerminalSafe(jobspec::FormatCustomJobJson(info.job), TextLayout::kJson);
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (info.vertex.has_value()) {
    absl::StrAppend(&out, "\nVertex AI:\n  Resource name: ", TerminalSafe(info.vertex->name),
                    "\n  Endpoint: ", TerminalSafe(info.vertex->endpoint),
                    "\n  Job directory: ", TerminalSafe(info.job_dir.string()),
                    "\n  Replica logs: in Cloud Logging\n");
    return out;
  }
  if (info.k8s.has_value()) {
    const sdk::k8s::ObjectRef& w = info.k8s->workload;
    absl::StrAppend(
        &out, "\nKubernetes:\n  Workload: ", TerminalSafe(w.kind), " ",
        TerminalSafe(w.kubernetes_namespace), "/", TerminalSafe(w.name), " (",
        TerminalSafe(w.api_version), ")\n  Kubeconfig: ", TerminalSafe(info.k8s->kubeconfig),
        ", context ", TerminalSafe(info.k8s->context),
        "\n  Job directory: ", TerminalSafe(info.job_dir.string()),
        "\n  Replica logs: the pods' logs (trainpkg jobs logs ", TerminalSafe(info.id), ")\n");
    return out;
  }
  absl::StrAppend(&out, "\nLocal details:\n  Job directory: ", TerminalSafe(info.job_dir.string()),
                  "\n");
  if (!info.slurm_job_id.empty()) {
    absl::StrAppend(&out, "  Slurm job: ", TerminalSafe(info.slurm_job_id),
                    " (squeue -j / sacct -j)\n");
  }
  if (info.local.supervisor.pid != 0) {
    absl::StrAppend(&out, "  Supervisor: pid ", info.local.supervisor.pid,
                    info.supervisor_running ? " (running)" : " (exited)", "\n");
  }
  if (!info.local.replicas.empty()) absl::StrAppend(&out, "  Replicas:\n");
  for (const sdk::ReplicaDetails& replica : info.local.replicas) {
    std::string status = replica.exit_status.has_value()
                             ? sdk::DescribeExitStatus(*replica.exit_status)
                             : std::string("running");
    // An SSH replica: on its host, its pid here being its ssh client's.
    const std::string where =
        replica.host.empty() ? absl::StrCat("pid ", replica.pid)
                             : absl::StrCat("on ", replica.host, " (ssh pid ", replica.pid, ")");
    absl::StrAppend(&out, "    ", TerminalSafe(replica.name), ": ", TerminalSafe(where), ", ",
                    TerminalSafe(replica.address), ", ", TerminalSafe(status),
                    "\n      command: ", TerminalSafe(absl::StrJoin(replica.argv, " ")),
                    "\n      log: ", TerminalSafe(store.LogFile(info.id, replica.name).string()),
                    "\n");
  }
  return out;
}

}  // namespace trainpkg::cli
