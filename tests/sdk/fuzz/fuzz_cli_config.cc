// Fuzz target: any bytes as trainpkg's config.yaml and as gcloud's active
// configuration file (sdk/cli/user_config.h, sdk/cli/gcloud_config.h), both
// read by every `trainpkg run`. Must never crash, hang or trip a sanitizer;
// errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/environment.h"
#include "base/file_util.h"
#include "sdk/cli/gcloud_config.h"
#include "sdk/cli/user_config.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  base::TempDir dir = fuzz::ScratchDir();
  base::MapEnvironment env;
  env.Set("XDG_CONFIG_HOME", (dir.path() / "xdg").string());
  env.Set("CLOUDSDK_CONFIG", (dir.path() / "gcloud").string());
  if (!base::WriteFileAtomic(dir.path() / "xdg" / "trainpkg" / "config.yaml", text).ok() ||
      !base::WriteFileAtomic(dir.path() / "gcloud" / "configurations" / "config_default", text)
           .ok()) {
    return 0;
  }
  (void)cli::ReadUserConfig(env);
  (void)cli::ReadGcloudProperties(env);
  return 0;
}
