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

// Converts the first YAML document in `yaml_text` to JSON. Scalars keep their
// YAML type (unquoted 2 is a number, "2" a string, true a bool, ~ null);
// aliases become copies of their anchored value. InvalidArgument for text
// that is not UTF-8 or holds a NUL byte, naming line and column for YAML
// errors, and for documents past the limits: 16 MiB of
// text, sequences and mappings nested 128 deep, 100000 values or 16 MiB of
// scalar text once aliases are expanded, and aliases inside the node they
// repeat (cycles).
absl::StatusOr<nlohmann::json> YamlToJson(std::string_view yaml_text);

// A document that starts with '{' and parses as JSON (base::ParseJson),
// otherwise YamlToJson.
absl::StatusOr<nlohmann::json> ParseJsonOrYaml(std::string_view text);

// Parses job-file text (YAML or JSON) in either form described above.
absl::StatusOr<CustomJob> ParseJobFile(std::string_view text);

// Reads and parses a job file; errors are prefixed with the file's path.
absl::StatusOr<CustomJob> LoadJobFile(const std::filesystem::path& path);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_JOB_FILE_H_
