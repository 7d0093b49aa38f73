// gcloud's own configuration, read and never written: the active
// configuration's [core] project and [ai] region, the defaults of
// `trainpkg run --backend vertex` when neither a flag, the environment nor
// trainpkg's config file (user_config.h) names them.
//
//   directory      $CLOUDSDK_CONFIG, else $HOME/.config/gcloud
//   configuration  $CLOUDSDK_ACTIVE_CONFIG_NAME, else the first line of
//                  <directory>/active_config, else "default"
//   file           <directory>/configurations/config_<configuration>, INI:
//                  "[section]" lines, "key = value" (or "key: value") lines,
//                  '#' and ';' comment lines
#ifndef TRAINPKG_SDK_CLI_GCLOUD_CONFIG_H_
#define TRAINPKG_SDK_CLI_GCLOUD_CONFIG_H_

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "base/environment.h"

namespace trainpkg::cli {

struct GcloudProperties {
  std::string project;         // [core] project; "" when unset
  std::string region;          // [ai] region; "" when unset
  std::filesystem::path file;  // the configuration file read; "" when there is none
};

// Files larger than this are refused (a gcloud configuration is a few lines).
inline constexpr size_t kMaxGcloudConfigBytes = 64 * 1024;

// The active configuration's properties. Empty properties when neither
// CLOUDSDK_CONFIG nor HOME is set or the file does not exist.
// InvalidArgument naming the file (and line) when active_config names no
// valid configuration (letters, digits, '-' and '_'), a line is neither a
// section, a comment nor "key = value", a key comes before any section, or
// the file is larger than kMaxGcloudConfigBytes.
absl::StatusOr<GcloudProperties> ReadGcloudProperties(const base::Environment& env);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_GCLOUD_CONFIG_H_
