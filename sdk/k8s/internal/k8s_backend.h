// The Kubernetes backend of sdk::CustomJob: Start() creates the workload
// (JobSet, TFJob or PyTorchJob), then the image pull secret and headless
// service owned by it (so deleting the workload deletes them), and starts a
// poller thread that GETs the workload with growing intervals, writes the
// Python SDK's state lines on each change and, once the job is terminal,
// writes every pod's log ("[<pod>] <line>"). Cancel() deletes the workload;
// the job is CANCELLED once the API server no longer has it or marks it
// deleted. Destroying the backend stops polling; the workload goes on.
#ifndef TRAINPKG_SDK_K8S_INTERNAL_K8S_BACKEND_H_
#define TRAINPKG_SDK_K8S_INTERNAL_K8S_BACKEND_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/poll_loop.h"
#include "sdk/k8s/job_manifests.h"
#include "sdk/k8s/k8s_backend_options.h"
#include "sdk/k8s/k8s_client.h"

namespace trainpkg::sdk::k8s::internal {

struct K8sBackendConfig {
  std::shared_ptr<K8sClient> client{};
  K8sBackendOptions options{};  // kind and poll intervals are read
  JobManifests manifests{};
  jobspec::CustomJob job{};
  sdk::internal::LineStream* log = nullptr;  // not owned; may be null
  bool stream_pod_logs = true;
  // Told the job on each state change, with the state before; one call at a
  // time, from Start() then the poller thread. May be empty.
  std::function<void(const jobspec::CustomJob& job, jobspec::JobState previous)> observer{};
};

class K8sBackend final : public sdk::internal::JobBackend {
 public:
  explicit K8sBackend(K8sBackendConfig config);
  ~K8sBackend() override;

  // Creates the objects; the client's errors. When a later object fails, the
  // workload is deleted again before the error is returned.
  absl::Status Start() override;
  void Wait() override;
  // Deletes the workload (once) and polls at once.
  void Cancel(bool immediately) override;

  jobspec::CustomJob job() const;
  // After Wait(): the terminal job, or the error that stopped polling.
  absl::StatusOr<jobspec::CustomJob> Result() const;

 private:
  // One GET; true when polling is over (terminal, cancelled or an error).
  bool PollOnce();
  void SetState(jobspec::JobState state, std::optional<jobspec::RpcStatus> error);
  void WritePodLogs();
  ObjectRef WorkloadRef() const;

  const K8sBackendConfig config_;
  mutable std::mutex mu_;
  jobspec::CustomJob job_;         // guarded by mu_
  absl::Status poll_error_;        // guarded by mu_
  bool cancel_requested_ = false;  // guarded by mu_
  sdk::internal::PollLoop loop_;   // last: stopped before the rest goes
};

}  // namespace trainpkg::sdk::k8s::internal

#endif  // TRAINPKG_SDK_K8S_INTERNAL_K8S_BACKEND_H_
