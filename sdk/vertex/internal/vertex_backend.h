// The Vertex AI backend of sdk::CustomJob: Start() creates the CustomJob on
// the service, a poller thread GETs it with growing intervals and writes the
// Python SDK's state lines on each change until the job is terminal.
// Destroying the backend stops polling; the job goes on on the service.
#ifndef TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_BACKEND_H_
#define TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_BACKEND_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/poll_loop.h"
#include "sdk/vertex/vertex_backend_options.h"
#include "sdk/vertex/vertex_client.h"

namespace trainpkg::sdk::vertex::internal {

// "https://console.cloud.google.com/vertex-ai/locations/<l>/training/<id>?project=<p>"
// for "projects/<p>/locations/<l>/customJobs/<id>"; "" for other names.
std::string ConsoleLink(std::string_view custom_job_name);

class VertexBackend final : public sdk::internal::JobBackend {
 public:
  // Told the created job, then each job polled whose state changed, with the
  // state before; one call at a time, from Start() then the poller thread.
  using Observer = std::function<void(const jobspec::CustomJob& job, jobspec::JobState previous)>;

  // `log` is not owned and may be null. `observer` may be null.
  VertexBackend(std::shared_ptr<VertexClient> client, const VertexBackendOptions& options,
                jobspec::CustomJob job, sdk::internal::LineStream* log,
                Observer observer = nullptr);
  ~VertexBackend() override;

  // Creates the job; its errors are the client's. Then starts polling.
  absl::Status Start() override;
  void Wait() override;
  // Asks the service to cancel (once) and polls at once.
  void Cancel(bool immediately) override;

  // The last job seen (the spec as given before Start()).
  jobspec::CustomJob job() const;
  // After Wait(): the terminal job, or the error that stopped polling.
  absl::StatusOr<jobspec::CustomJob> Result() const;

 private:
  // One GET; true when polling is over (terminal job or error).
  bool PollOnce();
  // `created`: the job Start() created, told to the observer whatever its state.
  void SetJob(jobspec::CustomJob job, bool created);

  const std::shared_ptr<VertexClient> client_;
  const VertexBackendOptions options_;
  sdk::internal::LineStream* const log_;
  const Observer observer_;
  mutable std::mutex mu_;
  jobspec::CustomJob job_;         // guarded by mu_
  absl::Status poll_error_;        // guarded by mu_
  bool cancel_requested_ = false;  // guarded by mu_
  sdk::internal::PollLoop loop_;   // last: stopped before the rest goes
};

}  // namespace trainpkg::sdk::vertex::internal

#endif  // TRAINPKG_SDK_VERTEX_INTERNAL_VERTEX_BACKEND_H_
