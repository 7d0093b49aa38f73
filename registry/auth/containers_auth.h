// Where podman, buildah and skopeo keep registry credentials
// (containers-auth.json(5)): the same format as docker's config.json
// ("auths", "credHelpers"), read after docker's file (docker_config.h) so a
// podman or skopeo login is used without copying it.
#ifndef TRAINPKG_REGISTRY_AUTH_CONTAINERS_AUTH_H_
#define TRAINPKG_REGISTRY_AUTH_CONTAINERS_AUTH_H_

#include <filesystem>
#include <vector>

#include "base/environment.h"

namespace trainpkg::registry {

// $REGISTRY_AUTH_FILE alone when it is set; else
// $XDG_RUNTIME_DIR/containers/auth.json (when XDG_RUNTIME_DIR is set), then
// $XDG_CONFIG_HOME/containers/auth.json, else
// $HOME/.config/containers/auth.json. Files that do not exist are listed
// too; readers skip them.
std::vector<std::filesystem::path> ContainersAuthFiles(const base::Environment& env);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_CONTAINERS_AUTH_H_
