// trainpkg's own configuration file, read and never written:
//
//   $XDG_CONFIG_HOME/trainpkg/config.yaml, else $HOME/.config/trainpkg/config.yaml
//
// A YAML mapping with these keys, each optional, each a string:
//   backend:  local | vertex | k8s | slurm   where `trainpkg run` and
//             `trainpkg hptune` send jobs when --backend is not given
//   project:  the Google Cloud project of the vertex backend
//   region:   the Vertex AI region of the vertex backend, e.g. us-central1
//   registry: the registry `trainpkg login` and `logout` use when none is named
// Precedence, highest first: the command's flag, the environment
// (CLOUDSDK_CORE_PROJECT, CLOUDSDK_AI_REGION), this file, gcloud's active
// configuration (gcloud_config.h). Only a flag or this file's `backend:`
// chooses a backend; the other defaults fill values once it is chosen.
#ifndef TRAINPKG_SDK_CLI_USER_CONFIG_H_
#define TRAINPKG_SDK_CLI_USER_CONFIG_H_

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "base/environment.h"

namespace trainpkg::cli {

struct UserConfig {
  std::string backend;  // "" when unset
  std::string project;
  std::string region;
  std::string registry;
  std::filesystem::path file;  // the file read; "" when there is none
};

// Files larger than this are refused.
inline constexpr size_t kMaxUserConfigBytes = 64 * 1024;

// The config file's path; "" when neither XDG_CONFIG_HOME nor HOME is set.
std::filesystem::path UserConfigPath(const base::Environment& env);

// The file's settings; all empty when it does not exist (or is empty).
// InvalidArgument naming the file and line when it is not YAML, not a
// mapping, has a key other than the four above (with the nearest), a value
// that is not a string, a backend that is not one of the four, or is larger
// than kMaxUserConfigBytes.
absl::StatusOr<UserConfig> ReadUserConfig(const base::Environment& env);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_USER_CONFIG_H_
