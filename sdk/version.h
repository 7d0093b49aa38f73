// Which trainpkg this is: what `trainpkg version` prints, and what the SSH
// backend requires of the trainpkg on a host that runs container images.
#ifndef TRAINPKG_SDK_VERSION_H_
#define TRAINPKG_SDK_VERSION_H_

#include <string>

namespace trainpkg::sdk {

// "trainpkg 0.1.0 (commit abc123def456)": the project version and the git
// commit the binary was built from ("+modified" when the tree had changes,
// "unknown" when it was not a git checkout).
std::string TrainpkgVersionLine();

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_VERSION_H_
