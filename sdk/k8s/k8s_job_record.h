// Jobs the Kubernetes backend submitted, kept in the local job store
// (sdk/job_store.h, sdk/internal/remote_job_recorder.h) so `trainpkg jobs`
// can list them and reach the cluster again:
//
//   <home>/jobs/<id>/job.json       the CustomJob as last seen
//                    history.jsonl  one line per state change seen
//                    k8s.json       where the job lives (K8sJobRecord)
//
// <id> is the workload's metadata.name. The record names the kubeconfig file
// and context, never a token or key: reaching the cluster again reads the
// kubeconfig again. Replica logs stay on the cluster (the pods' logs).
#ifndef TRAINPKG_SDK_K8S_K8S_JOB_RECORD_H_
#define TRAINPKG_SDK_K8S_K8S_JOB_RECORD_H_

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/remote_job_recorder.h"
#include "sdk/job_store.h"
#include "sdk/k8s/k8s_client.h"

namespace trainpkg::sdk::k8s {

struct K8sJobRecord {
  std::string kubeconfig;  // the kubeconfig file's absolute path
  std::string context;     // the context used
  ObjectRef workload;      // the JobSet / TFJob / PyTorchJob
  bool operator==(const K8sJobRecord& other) const;
};

// k8s.json text (pretty, camelCase keys: kubeconfig, context, apiVersion,
// kind, namespace, name) and back. Parse errors are InvalidArgument naming
// the field; every field is required.
std::string FormatK8sJobRecord(const K8sJobRecord& record);
absl::StatusOr<K8sJobRecord> ParseK8sJobRecord(std::string_view text);

std::filesystem::path K8sJobRecordFile(const JobStore& store, std::string_view id);
absl::Status WriteK8sJobRecord(const JobStore& store, std::string_view id,
                               const K8sJobRecord& record);
// NotFound when job `id` has no k8s.json (it is not a Kubernetes job);
// DataLoss naming the file when it does not parse.
absl::StatusOr<K8sJobRecord> ReadK8sJobRecord(const JobStore& store, std::string_view id);

// How sdk::internal::RemoteJobRecorder records a job the Kubernetes backend
// runs: under the workload's name, with `where` as k8s.json.
sdk::internal::RemoteJobRecordHooks K8sJobRecordHooks(K8sJobRecord where);

// A client for the record's cluster: its kubeconfig and context read again.
absl::StatusOr<std::shared_ptr<K8sClient>> MakeK8sClientFor(const K8sJobRecord& record);

// GETs recorded job `id`'s workload and records the state it shows
// (workload_state.h); a terminal record is returned as it is. A workload the
// server no longer has, or marks deleted, ends the job CANCELLED ("deleted
// from the cluster"). NotFound when it is not a Kubernetes job; the client's
// errors.
absl::StatusOr<jobspec::CustomJob> RefreshRecordedK8sJob(const JobStore& store, std::string_view id,
                                                         K8sClient& client);

// Deletes recorded job `id`'s workload (unless the record is already
// terminal), then polls every `poll_interval` until the server no longer has
// it or marks it deleted, and records CANCELLED (or the terminal state it
// reached first). DeadlineExceeded when neither happened after `timeout`.
absl::StatusOr<jobspec::CustomJob> CancelRecordedK8sJob(
    const JobStore& store, std::string_view id, K8sClient& client, absl::Duration timeout,
    absl::Duration poll_interval = absl::Milliseconds(500));

// Writes the logs of recorded job `id`'s pods, read from the API server:
// every line prefixed "[<pod>] ", pods in name order; with `replica` (e.g.
// "workerpool1-0") only the pods of that replica, without prefixes.
// NotFound when no pod matches.
absl::Status WriteRecordedK8sJobLogs(const JobStore& store, std::string_view id, K8sClient& client,
                                     std::string_view replica, std::ostream& out);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_K8S_JOB_RECORD_H_
