// COPY/ADD --chown and --chmod values, as the layer writer's overrides.
#ifndef TRAINPKG_PACKAGER_BUILDER_COPY_FLAGS_H_
#define TRAINPKG_PACKAGER_BUILDER_COPY_FLAGS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::builder {

// `--chown=UID[:GID]` (numeric; "root" is 0; GID defaults to UID) and
// `--chmod=OCTAL` (up to 4 digits); either may be "". Names other than root
// need the image's /etc/passwd, which the builder does not read (base layers
// are never downloaded): InvalidArgument saying to use numeric ids.
absl::StatusOr<EntryOverrides> ParseCopyFlags(std::string_view chown, std::string_view chmod);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_COPY_FLAGS_H_
