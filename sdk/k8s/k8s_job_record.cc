#include "sdk/k8s/k8s_job_record.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/private_file.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/job_state.h"
#include "nlohmann/json.hpp"
#include "sdk/k8s/k8s_client_factory.h"
#include "sdk/k8s/kubeconfig.h"
#include "sdk/k8s/pod_logs.h"
#include "sdk/k8s/workload_kind.h"
#include "sdk/k8s/workload_state.h"

namespace trainpkg::sdk::k8s {
namespace {

using Json = nlohmann::json;

// k8s.json's keys and the fields they hold.
struct Field {
  const char* key;
  std::string* (*of)(K8sJobRecord&);
};
constexpr Field kFields[] = {
    {"kubeconfig", [](K8sJobRecord& r) { return &r.kubeconfig; }},
    {"context", [](K8sJobRecord& r) { return &r.context; }},
    {"apiVersion", [](K8sJobRecord& r) { return &r.workload.api_version; }},
    {"kind", [](K8sJobRecord& r) { return &r.workload.kind; }},
    {"namespace", [](K8sJobRecord& r) { return &r.workload.kubernetes_namespace; }},
    {"name", [](K8sJobRecord& r) { return &r.workload.name; }}};

absl::StatusOr<WorkloadKind> KindOf(const ObjectRef& ref) {
  for (WorkloadKind kind :
       {WorkloadKind::kJobSet, WorkloadKind::kTFJob, WorkloadKind::kPyTorchJob}) {
    if (ref.kind == WorkloadKindField(kind)) return kind;
  }
  return absl::InvalidArgumentError(
      fmt::format("kind \"{}\" is not JobSet, TFJob or PyTorchJob", ref.kind));
}

std::string DescribeObject(const ObjectRef& ref) {
  return fmt::format("{} {}/{}", ref.kind, ref.kubernetes_namespace, ref.name);
}

// Records `job` moved to `state` with `error` (SetJobState).
absl::StatusOr<jobspec::CustomJob> RecordState(const JobStore& store, std::string_view id,
                                               jobspec::CustomJob job, jobspec::JobState state,
                                               std::optional<jobspec::RpcStatus> error) {
  const jobspec::JobState previous = job.state;
  if (state == previous) return job;
  const absl::Time now = absl::Now();
  SetJobState(job, state, std::move(error), now);
  TP_RETURN_IF_ERROR(sdk::internal::RecordRemoteJobState(store, id, job, previous, now));
  return job;
}

// Code 1 is google.rpc CANCELLED, what the other backends record for a
// cancel too (sdk/internal/job_errors.h).
const jobspec::RpcStatus kDeleted{.code = 1, .message = "CANCELLED: deleted from the cluster"};

}  // namespace

bool K8sJobRecord::operator==(const K8sJobRecord& other) const {
  return FormatK8sJobRecord(*this) == FormatK8sJobRecord(other);
}

std::string FormatK8sJobRecord(const K8sJobRecord& record) {
  K8sJobRecord copy = record;
  Json out = Json::object();
  for (const Field& field : kFields) out[field.key] = *field.of(copy);
  return out.dump(2) + "\n";
}

absl::StatusOr<K8sJobRecord> ParseK8sJobRecord(std::string_view text) {
  Json in = base::ParseJson(text).value_or(Json::value_t::discarded);
  if (!in.is_object()) return absl::InvalidArgumentError("not a JSON object");
  K8sJobRecord record;
  for (const Field& field : kFields) {
    auto it = in.find(field.key);
    if (it == in.end() || !it->is_string() || it->get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: a non-empty string is required", field.key));
    }
    *field.of(record) = it->get<std::string>();
  }
  if (absl::StatusOr<WorkloadKind> kind = KindOf(record.workload); !kind.ok()) {
    return kind.status();
  }
  return record;
}

std::filesystem::path K8sJobRecordFile(const JobStore& store, std::string_view id) {
  return store.JobDir(id) / "k8s.json";
}

absl::Status WriteK8sJobRecord(const JobStore& store, std::string_view id,
                               const K8sJobRecord& record) {
  return base::WriteFileAtomicPrivate(K8sJobRecordFile(store, id), FormatK8sJobRecord(record));
}

absl::StatusOr<K8sJobRecord> ReadK8sJobRecord(const JobStore& store, std::string_view id) {
  const std::filesystem::path file = K8sJobRecordFile(store, id);
  absl::StatusOr<std::string> text = base::ReadFile(file);
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(fmt::format("job {} is not a Kubernetes job", id));
  }
  if (!text.ok()) return text.status();
  absl::StatusOr<K8sJobRecord> record = ParseK8sJobRecord(*text);
  if (!record.ok()) {
    return absl::DataLossError(absl::StrCat(file.string(), ": ", record.status().message()));
  }
  return record;
}

sdk::internal::RemoteJobRecordHooks K8sJobRecordHooks(K8sJobRecord where) {
  return {
      .id = [where](const jobspec::CustomJob&) -> absl::StatusOr<std::string> {
        return where.workload.name;
      },
      .write = [where](const JobStore& store, std::string_view id,
                       const jobspec::CustomJob&) { return WriteK8sJobRecord(store, id, where); },
      .is_this_job =
          [where](const JobStore& store, std::string_view id, const jobspec::CustomJob&) {
            absl::StatusOr<K8sJobRecord> existing = ReadK8sJobRecord(store, id);
            return existing.ok() && *existing == where;
          }};
}

absl::StatusOr<std::shared_ptr<K8sClient>> MakeK8sClientFor(const K8sJobRecord& record) {
  TP_ASSIGN_OR_RETURN(ClusterAccess access, LoadKubeconfig(record.kubeconfig, record.context));
  return MakeK8sClient(access, nullptr);
}

absl::StatusOr<jobspec::CustomJob> RefreshRecordedK8sJob(const JobStore& store, std::string_view id,
                                                         K8sClient& client) {
  TP_ASSIGN_OR_RETURN(K8sJobRecord record, ReadK8sJobRecord(store, id));
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob job, store.ReadJob(id));
  if (jobspec::IsTerminal(job.state))
    return job;  // what happens to the workload later is not the job's
  TP_ASSIGN_OR_RETURN(WorkloadKind kind, KindOf(record.workload));
  absl::StatusOr<Json> got = client.Get(record.workload);
  if (absl::IsNotFound(got.status())) {
    return RecordState(store, id, std::move(job), jobspec::JobState::kCancelled, kDeleted);
  }
  if (!got.ok()) return got.status();
  // Being deleted (finalizers may keep it a while) is already the end of the job.
  if ((*got)["metadata"].contains("deletionTimestamp")) {
    return RecordState(store, id, std::move(job), jobspec::JobState::kCancelled, kDeleted);
  }
  WorkloadState state = ReadWorkloadState(kind, *got);
  return RecordState(store, id, std::move(job), state.state, std::move(state.error));
}

absl::StatusOr<jobspec::CustomJob> CancelRecordedK8sJob(const JobStore& store, std::string_view id,
                                                        K8sClient& client, absl::Duration timeout,
                                                        absl::Duration poll_interval) {
  TP_ASSIGN_OR_RETURN(K8sJobRecord record, ReadK8sJobRecord(store, id));
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob job, store.ReadJob(id));
  if (jobspec::IsTerminal(job.state)) return job;
  if (absl::Status deleted = client.Delete(record.workload);
      // Already gone is what a cancel wants.
      !deleted.ok() && !absl::IsNotFound(deleted)) {
    return base::WithContext(deleted, absl::StrCat("deleting ", DescribeObject(record.workload)));
  }
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    TP_ASSIGN_OR_RETURN(job, RefreshRecordedK8sJob(store, id, client));
    if (jobspec::IsTerminal(job.state)) return job;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(fmt::format(
          "{} is still there after {}", DescribeObject(record.workload), absl::FormatDuration(timeout)));
    }
    absl::SleepFor(poll_interval);
  }
}

absl::Status WriteRecordedK8sJobLogs(const JobStore& store, std::string_view id, K8sClient& client,
                                     std::string_view replica, std::ostream& out) {
  TP_ASSIGN_OR_RETURN(K8sJobRecord record, ReadK8sJobRecord(store, id));
  TP_ASSIGN_OR_RETURN(
      std::vector<PodLog> logs,
      ReadJobPodLogs(client, record.workload.kubernetes_namespace, record.workload.name, replica));
  if (logs.empty()) {
    return absl::NotFoundError(
        replica.empty()
            ? fmt::format("{} has no pods (yet, or any more)", DescribeObject(record.workload))
            : fmt::format("{} has no pod of replica {}", DescribeObject(record.workload), replica));
  }
  for (const PodLog& pod : logs) {
    const std::string prefix = replica.empty() ? absl::StrCat("[", pod.pod, "] ") : "";
    if (!pod.text.ok()) {
      out << prefix << "(reading the log failed: " << pod.text.status().message() << ")\n";
      continue;
    }
    for (absl::string_view line : absl::StrSplit(*pod.text, '\n', absl::SkipEmpty())) {
      out << prefix << line << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk::k8s
