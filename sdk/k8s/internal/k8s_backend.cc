#include "sdk/k8s/internal/k8s_backend.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "jobspec/job_state.h"
#include "sdk/internal/state_lines.h"
#include "sdk/k8s/internal/json_text.h"
#include "sdk/k8s/pod_logs.h"
#include "sdk/k8s/workload_state.h"

namespace trainpkg::sdk::k8s::internal {
namespace {

using nlohmann::json;

}  // namespace

K8sBackend::K8sBackend(K8sBackendConfig config) : config_(std::move(config)), job_(config_.job) {
  const ObjectRef ref = WorkloadRef();
  job_.name = absl::StrCat("namespaces/", ref.kubernetes_namespace, "/",
                           absl::AsciiStrToLower(ref.kind), "s/", ref.name);
}

K8sBackend::~K8sBackend() { loop_.Stop(); }

ObjectRef K8sBackend::WorkloadRef() const {
  const json& w = config_.manifests.workload;
  return {.api_version = Text(w, "apiVersion"),
          .kind = Text(w, "kind"),
          .kubernetes_namespace = Text(w["metadata"], "namespace"),
          .name = Text(w["metadata"], "name")};
}

absl::Status K8sBackend::Start() {
  sdk::internal::LineStream* log = config_.log;
  // The workload first: the others' ownerReferences name its uid, so the
  // garbage collector deletes them with it.
  absl::StatusOr<json> created = config_.client->Create(config_.manifests.workload);
  if (!created.ok()) return created.status();
  const ObjectRef ref = WorkloadRef();
  // The secret and the service go with the workload.
  json owner = {{"apiVersion", ref.api_version},
                {"kind", ref.kind},
                {"name", ref.name},
                {"uid", Text((*created)["metadata"], "uid")},
                {"blockOwnerDeletion", false}};
  for (std::optional<json> object : {config_.manifests.pull_secret, config_.manifests.service}) {
    if (!object.has_value()) continue;
    (*object)["metadata"]["ownerReferences"] = json::array({owner});
    if (absl::StatusOr<json> made = config_.client->Create(*object); !made.ok()) {
      // Nothing half-made stays behind: the workload goes again.
      (void)config_.client->Delete(ref);
      return made.status();
    }
  }
  if (log != nullptr) {
    log->WriteLine("", absl::StrCat(ref.kind, " created. Resource name: ", job().name));
    log->WriteLine("", absl::StrCat("To watch it in another session:\nkubectl get ",
                                    absl::AsciiStrToLower(ref.kind), " -n ",
                                    ref.kubernetes_namespace, " ", ref.name, " -w"));
  }
  SetState(jobspec::JobState::kQueued, std::nullopt);
  loop_.Start({.initial = config_.options.initial_poll_interval,
               .max = config_.options.max_poll_interval,
               .multiplier = config_.options.poll_multiplier},
              [this] { return PollOnce(); });
  return absl::OkStatus();
}

void K8sBackend::Wait() { loop_.Wait(); }

void K8sBackend::Cancel(bool /*immediately: deletion has the pods' own grace period*/) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (loop_.done() || cancel_requested_ || !loop_.started()) return;
    cancel_requested_ = true;
  }
  SetState(jobspec::JobState::kCancelling, std::nullopt);
  absl::Status status = config_.client->Delete(WorkloadRef());
  if (!status.ok() && status.code() != absl::StatusCode::kNotFound) {
    // The workload is still there (e.g. RBAC lets us create but not delete): say so and go on
    // following its real state rather than waiting for a deletion that will not come.
    if (config_.log != nullptr) {
      config_.log->WriteLine("", absl::StrCat("Cancelling ", job().name, " failed: ",
                                              status.ToString(), "; the job goes on."));
    }
    std::lock_guard<std::mutex> lock(mu_);
    cancel_requested_ = false;
  }
  loop_.Wake();
}

jobspec::CustomJob K8sBackend::job() const {
  std::lock_guard<std::mutex> lock(mu_);
  return job_;
}

absl::StatusOr<jobspec::CustomJob> K8sBackend::Result() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!poll_error_.ok()) return poll_error_;
  return job_;
}

void K8sBackend::SetState(jobspec::JobState state, std::optional<jobspec::RpcStatus> error) {
  std::string name;
  jobspec::JobState previous;
  jobspec::CustomJob job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (job_.state == state) return;
    previous = job_.state;
    SetJobState(job_, state, error, absl::Now());
    name = job_.name;
    job = job_;
  }
  sdk::internal::WriteStateLines(config_.log, name, state, error);
  if (config_.observer) config_.observer(job, previous);
}

void K8sBackend::WritePodLogs() {
  sdk::internal::LineStream* log = config_.log;
  if (log == nullptr || !config_.stream_pod_logs) return;
  const ObjectRef ref = WorkloadRef();
  absl::StatusOr<std::vector<PodLog>> logs =
      ReadJobPodLogs(*config_.client, ref.kubernetes_namespace, ref.name);
  if (!logs.ok()) {
    log->WriteLine("", absl::StrCat("Listing the job's pods failed: ", logs.status().ToString()));
    return;
  }
  for (const PodLog& pod : *logs) {
    if (!pod.text.ok()) {
      log->WriteLine("", absl::StrCat("Reading the log of ", pod.pod,
                                      " failed: ", pod.text.status().ToString()));
      continue;
    }
    for (absl::string_view line : absl::StrSplit(*pod.text, '\n', absl::SkipEmpty())) {
      log->WriteOutput(absl::StrCat("[", pod.pod, "] "),
                       std::string_view(line.data(), line.size()));
    }
  }
}

bool K8sBackend::PollOnce() {
  bool cancelling = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelling = cancel_requested_;
  }
  absl::StatusOr<json> got = config_.client->Get(WorkloadRef());
  const bool gone = !got.ok() && got.status().code() == absl::StatusCode::kNotFound;
  if (cancelling && (gone || (got.ok() && (*got)["metadata"].contains("deletionTimestamp")))) {
    SetState(jobspec::JobState::kCancelled, jobspec::RpcStatus{.code = 1, .message = "CANCELLED"});
    return true;
  }
  if (!got.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    poll_error_ = got.status();
    return true;
  }
  if (cancelling) return false;
  WorkloadState state = ReadWorkloadState(config_.options.kind, *got);
  // Once, at the end: the pods are kept (cleanPodPolicy None), so their logs are whole.
  if (jobspec::IsTerminal(state.state)) WritePodLogs();
  SetState(state.state, state.error);
  return jobspec::IsTerminal(state.state);
}

}  // namespace trainpkg::sdk::k8s::internal
