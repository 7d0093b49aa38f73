#include "sdk/internal/task_manifest.h"

#include "absl/strings/str_cat.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::internal {

std::string FormatTaskManifest(const TaskManifest& manifest) {
  nlohmann::json json = {{"jobId", manifest.job_id},
                         {"projectId", manifest.project_id},
                         {"jobSpec", jobspec::CustomJobSpecToJson(manifest.spec)}};
  if (!manifest.replica.empty()) json["replica"] = manifest.replica;
  if (!manifest.env.empty()) json["env"] = manifest.env;
  return json.dump();
}

absl::StatusOr<TaskManifest> ParseTaskManifest(std::string_view text) {
  nlohmann::json json = base::ParseJson(text).value_or(nlohmann::json::value_t::discarded);
  if (!json.is_object()) return absl::InvalidArgumentError("task manifest: not a JSON object");
  TaskManifest manifest;
  for (auto [key, target] :
       {std::pair{"jobId", &manifest.job_id}, std::pair{"projectId", &manifest.project_id}}) {
    if (!json.contains(key) || !json[key].is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("task manifest: ", key, ": missing or not a string"));
    }
    *target = json[key].get<std::string>();
  }
  if (!json.contains("jobSpec")) {
    return absl::InvalidArgumentError("task manifest: jobSpec: missing");
  }
  TP_ASSIGN_OR_RETURN(manifest.spec, jobspec::CustomJobSpecFromJson(json["jobSpec"], "jobSpec"));
  if (json.contains("replica")) {
    if (!json["replica"].is_string()) {
      return absl::InvalidArgumentError("task manifest: replica: not a string");
    }
    manifest.replica = json["replica"].get<std::string>();
  }
  if (json.contains("env")) {
    if (!json["env"].is_object()) {
      return absl::InvalidArgumentError("task manifest: env: not an object");
    }
    for (const auto& [name, value] : json["env"].items()) {
      if (!value.is_string()) {
        return absl::InvalidArgumentError(
            absl::StrCat("task manifest: env.", name, ": not a string"));
      }
      manifest.env[name] = value.get<std::string>();
    }
  }
  return manifest;
}

}  // namespace trainpkg::sdk::internal
