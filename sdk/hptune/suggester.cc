#include "sdk/hptune/suggester.h"

#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_validation.h"
#include "sdk/hptune/internal/gaussian_process_suggester.h"
#include "sdk/hptune/internal/grid_suggester.h"
#include "sdk/hptune/internal/random_suggester.h"

namespace trainpkg::sdk::hptune {

absl::StatusOr<std::unique_ptr<Suggester>> MakeSuggester(const jobspec::StudySpec& spec,
                                                         uint64_t seed, int max_trial_count) {
  std::vector<jobspec::ValidationIssue> issues = jobspec::CollectStudySpecIssues(spec, "studySpec");
  if (!issues.empty()) {
    std::string message = "invalid study spec:";
    for (const jobspec::ValidationIssue& issue : issues) {
      message += fmt::format("\n  {}: {}", issue.field, issue.message);
    }
    return absl::InvalidArgumentError(message);
  }
  switch (spec.algorithm) {
    case jobspec::SearchAlgorithm::kGridSearch:
      return std::make_unique<internal::GridSuggester>(spec);
    case jobspec::SearchAlgorithm::kRandomSearch:
      return std::make_unique<internal::RandomSuggester>(spec, seed);
    case jobspec::SearchAlgorithm::kUnspecified:
      return std::make_unique<internal::GaussianProcessSuggester>(spec, seed, max_trial_count);
  }
  return absl::InvalidArgumentError(
      fmt::format("unknown search algorithm {}", static_cast<int>(spec.algorithm)));
}

}  // namespace trainpkg::sdk::hptune
