// sdk::HyperparameterTuningJob on the Vertex backend: the tuning job is
// created on Vertex AI (or `trainpkg serve`) through VertexClient and polled
// until it is terminal; Cancel() asks the service to cancel it.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_VERTEX_STUDY_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_VERTEX_STUDY_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "sdk/vertex/vertex_client.h"

namespace trainpkg::sdk::hptune::internal {

class VertexStudy {
 public:
  // POSTs `job` under projects/<project>/locations/<location>. The client's
  // errors (the service's google.rpc.Status); InvalidArgument when the reply
  // is not a HyperparameterTuningJob.
  static absl::StatusOr<std::unique_ptr<VertexStudy>> Create(
      std::shared_ptr<vertex::VertexClient> client, const std::string& project,
      const std::string& location, const jobspec::HyperparameterTuningJob& job);

  // The job as the service returned it on creation (name, state).
  const jobspec::HyperparameterTuningJob& created() const { return created_; }

  // Polls every `interval` until the job is terminal, calling `on_update`
  // with each reply; sends the cancel request once Cancel() was called.
  // The client's errors stop polling.
  absl::StatusOr<jobspec::HyperparameterTuningJob> Wait(
      absl::Duration interval,
      const std::function<void(const jobspec::HyperparameterTuningJob&)>& on_update);

  // Thread-safe, idempotent.
  void Cancel() { cancel_.store(true); }

 private:
  VertexStudy(std::shared_ptr<vertex::VertexClient> client, jobspec::HyperparameterTuningJob job)
      : client_(std::move(client)), created_(std::move(job)) {}

  std::shared_ptr<vertex::VertexClient> client_;
  jobspec::HyperparameterTuningJob created_;
  std::atomic<bool> cancel_{false};
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_VERTEX_STUDY_H_
