#include "sdk/hptune/internal/vertex_study.h"

#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_json.h"

namespace trainpkg::sdk::hptune::internal {

absl::StatusOr<std::unique_ptr<VertexStudy>> VertexStudy::Create(
    std::shared_ptr<vertex::VertexClient> client, const std::string& project,
    const std::string& location, const jobspec::HyperparameterTuningJob& job) {
  TP_ASSIGN_OR_RETURN(vertex::HyperparameterTuningJobDocument document,
                      client->CreateHyperparameterTuningJob(
                          fmt::format("projects/{}/locations/{}", project, location),
                          jobspec::HyperparameterTuningJobToJson(job)));
  TP_ASSIGN_OR_RETURN(jobspec::HyperparameterTuningJob created,
                      jobspec::HyperparameterTuningJobFromJson(document.json));
  return std::unique_ptr<VertexStudy>(new VertexStudy(std::move(client), std::move(created)));
}

absl::StatusOr<jobspec::HyperparameterTuningJob> VertexStudy::Wait(
    absl::Duration interval,
    const std::function<void(const jobspec::HyperparameterTuningJob&)>& on_update) {
  bool cancel_sent = false;
  while (true) {
    if (cancel_.load() && !cancel_sent) {
      TP_RETURN_IF_ERROR(client_->CancelHyperparameterTuningJob(created_.name));
      cancel_sent = true;
    }
    TP_ASSIGN_OR_RETURN(vertex::HyperparameterTuningJobDocument document,
                        client_->GetHyperparameterTuningJob(created_.name));
    TP_ASSIGN_OR_RETURN(jobspec::HyperparameterTuningJob job,
                        jobspec::HyperparameterTuningJobFromJson(document.json));
    if (on_update) on_update(job);
    if (jobspec::IsTerminal(job.state)) return job;
    absl::SleepFor(interval);
  }
}

}  // namespace trainpkg::sdk::hptune::internal
