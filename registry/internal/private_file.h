// Writing files that hold secrets.
#ifndef TRAINPKG_REGISTRY_INTERNAL_PRIVATE_FILE_H_
#define TRAINPKG_REGISTRY_INTERNAL_PRIVATE_FILE_H_

#include <filesystem>
#include <string_view>

#include "absl/status/status.h"

namespace trainpkg::registry::internal {

// Like base::WriteFileAtomic, but the file is created 0600 from the first
// byte and a missing parent directory is created 0700.
absl::Status WritePrivateFileAtomic(const std::filesystem::path& path, std::string_view contents);

}  // namespace trainpkg::registry::internal

#endif  // TRAINPKG_REGISTRY_INTERNAL_PRIVATE_FILE_H_
