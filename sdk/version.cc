#include "sdk/version.h"

#include "absl/strings/str_cat.h"

namespace trainpkg::sdk {

extern const char kGitCommit[];  // generated: cmake/TrainpkgVersionInfo.cmake

std::string TrainpkgVersionLine() {
  return absl::StrCat("trainpkg ", TRAINPKG_VERSION, " (commit ", kGitCommit, ")");
}

}  // namespace trainpkg::sdk
