// Job files as `trainpkg run --config` and `gcloud ai custom-jobs create
// --config` take them: YAML (or JSON, a subset of YAML) holding either a whole
// CustomJob ({displayName, jobSpec: {...}}) or, gcloud's form, the
// CustomJobSpec itself ({workerPoolSpecs: [...], baseOutputDirectory: ...}).
// gcloud also accepts a single mapping for workerPoolSpecs; so do we.
#ifndef TRAINPKG_JOBSPEC_JOB_FILE_H_
#define TRAINPKG_JOBSPEC_JOB_FILE_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec {

// Converts YAML text to JSON. Scalars keep their YAML type (unquoted 2 is a
// number, "2" a string, true a bool, ~ null). Errors name line and column.
absl::StatusOr<nlohmann::json> YamlToJson(std::string_view yaml_text);

// Parses job-file text (YAML or JSON) in either form described above.
absl::StatusOr<CustomJob> ParseJobFile(std::string_view text);

// Reads and parses a job file; errors are prefixed with the file's path.
absl::StatusOr<CustomJob> LoadJobFile(const std::filesystem::path& path);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_JOB_FILE_H_
