#include "sdk/vertex/internal/vertex_backend.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "jobspec/job_secret.h"
#include "jobspec/job_state.h"
#include "sdk/internal/state_lines.h"

namespace trainpkg::sdk::vertex::internal {

std::string ConsoleLink(std::string_view custom_job_name) {
  std::vector<std::string> parts = absl::StrSplit(std::string(custom_job_name), '/');
  if (parts.size() != 6 || parts[0] != "projects" || parts[2] != "locations" ||
      parts[4] != "customJobs") {
    return "";
  }
  return fmt::format(
      "https://console.cloud.google.com/vertex-ai/locations/{}/training/{}?project={}", parts[3],
      parts[5], parts[1]);
}

VertexBackend::VertexBackend(std::shared_ptr<VertexClient> client,
                             const VertexBackendOptions& options, jobspec::CustomJob job,
                             sdk::internal::LineStream* log, Observer observer)
    : client_(std::move(client)),
      options_(options),
      log_(log),
      observer_(std::move(observer)),
      job_(std::move(job)) {}

VertexBackend::~VertexBackend() { loop_.Stop(); }

absl::Status VertexBackend::Start() {
  std::string parent = LocationName(options_.project, options_.location);
  // Vertex writes the cluster env itself; the job secret that the replicas'
  // RPCs carry travels in each pool's container env.
  absl::StatusOr<std::string> secret = jobspec::NewJobSecret();
  if (!secret.ok()) return secret.status();
  jobspec::CustomJob submitted = job();
  jobspec::AddJobSecretToPools(submitted.job_spec, *secret);
  absl::StatusOr<jobspec::CustomJob> created = client_->CreateCustomJob(parent, submitted);
  if (!created.ok()) return created.status();
  const std::string name = created->name;
  if (log_ != nullptr) {
    log_->WriteLine("", fmt::format("CustomJob created. Resource name: {}", name));
    log_->WriteLine("", fmt::format("To use this CustomJob in another session:\ncurl -H "
                                    "\"Authorization: Bearer $(gcloud auth print-access-token)\" "
                                    "{}/v1/{}",
                                    client_->endpoint(), name));
    if (std::string link = ConsoleLink(name); !link.empty()) {
      log_->WriteLine("", fmt::format("View Custom Job:\n{}", link));
    }
  }
  SetJob(*std::move(created), /*created=*/true);
  loop_.Start({.initial = options_.initial_poll_interval,
               .max = options_.max_poll_interval,
               .multiplier = options_.poll_multiplier},
              [this] { return PollOnce(); });
  return absl::OkStatus();
}

void VertexBackend::Wait() { loop_.Wait(); }

void VertexBackend::Cancel(bool /*immediately: the service has no forced cancel*/) {
  std::string name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (loop_.done() || cancel_requested_ || job_.name.empty()) return;
    cancel_requested_ = true;
    name = job_.name;
  }
  absl::Status status = client_->CancelCustomJob(name);
  if (!status.ok() && log_ != nullptr) {
    log_->WriteLine("", fmt::format("Cancelling {} failed: {}", name, status.ToString()));
  }
  loop_.Wake();
}

jobspec::CustomJob VertexBackend::job() const {
  std::lock_guard<std::mutex> lock(mu_);
  return job_;
}

absl::StatusOr<jobspec::CustomJob> VertexBackend::Result() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!poll_error_.ok()) return poll_error_;
  return job_;
}

void VertexBackend::SetJob(jobspec::CustomJob job, bool created) {
  jobspec::JobState previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    previous = job_.state;
    job_ = job;
  }
  // The first reply is recorded even if its state is the one assumed before:
  // it creates the job's record.
  if (observer_ && (created || job.state != previous)) observer_(job, previous);
  if (job.state == previous) return;
  sdk::internal::WriteStateLines(log_, job.name, job.state, job.error);
}

bool VertexBackend::PollOnce() {
  absl::StatusOr<jobspec::CustomJob> got = client_->GetCustomJob(job().name);
  // The transport retries what is transient (the default one is a
  // RetryTransport): an error here ends the wait, and Result() returns it.
  if (!got.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    poll_error_ = got.status();
    return true;
  }
  const bool terminal = jobspec::IsTerminal(got->state);
  SetJob(*std::move(got), /*created=*/false);
  return terminal;
}

}  // namespace trainpkg::sdk::vertex::internal
