// Client-side validation of a CustomJob before anything runs.
//
// Every rule reports the field path in JSON form and the reason, e.g.
//   workerPoolSpecs[1].machineSpec.acceleratorCount: set without acceleratorType; ...
// All problems are collected; the returned InvalidArgument lists them one per
// line, so a user fixes a file in one pass.
#ifndef TRAINPKG_JOBSPEC_VALIDATION_H_
#define TRAINPKG_JOBSPEC_VALIDATION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "jobspec/custom_job.h"

namespace trainpkg::jobspec {

struct ValidationIssue {
  std::string field;  // e.g. "jobSpec.workerPoolSpecs[0].replicaCount"
  std::string message;
};

// Rules: displayName required and <= 128 characters; labels (<= 64, keys
// 1-63 chars starting with a lowercase letter, keys and values only lowercase
// letters, digits, '_' and '-', values <= 63); jobSpec.workerPoolSpecs: 1..4
// pools, pool 0 present (not a placeholder) with replicaCount 1, other pools
// either placeholders or complete; each non-empty pool: machineSpec with
// machineType, replicaCount 1..1000 and 2000 replicas per job, exactly one of
// containerSpec / pythonPackageSpec, imageUri / executorImageUri /
// pythonModule present, imageUri and executorImageUri in a form ImageUri::Parse
// reads (image_uri.h; executorImageUri an image, not local:), acceleratorType and acceleratorCount set together
// (count 1..16, type a known enum name), command and args together <=
// 100000 characters, <= 100 packageUris, env names valid C identifiers and
// unique, <= 100 env vars of <= 100000 characters together; scheduling.timeout
// > 0 when set. The upper bounds come first, so nothing sized by a count is
// planned before they hold, and an oversized list gets one issue, not one
// per element.
std::vector<ValidationIssue> CollectValidationIssues(const CustomJob& job);

// OkStatus, or InvalidArgument listing every issue.
absl::Status ValidateCustomJob(const CustomJob& job);

// Job-ID rules from AI Platform Training: letters, digits and underscores,
// starting with a letter, at most 128 characters.
absl::Status ValidateJobId(std::string_view job_id);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_VALIDATION_H_
