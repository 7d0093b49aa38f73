// Files only their owner may read: records that hold secrets, such as a
// job's environment values (API keys) or its logs. Like file_util.h's
// WriteFileAtomic and AppendToFile, but the file's mode is exactly 0600
// whatever the process umask, and an existing, wider file is narrowed.
#ifndef TRAINPKG_BASE_PRIVATE_FILE_H_
#define TRAINPKG_BASE_PRIVATE_FILE_H_

#include <filesystem>
#include <string_view>

#include "absl/status/status.h"
#include "base/file_util.h"

namespace trainpkg::base {

absl::Status WriteFileAtomicPrivate(const std::filesystem::path& path, std::string_view contents,
                                    FileSync sync = FileSync::kSync);

absl::Status AppendToFilePrivate(const std::filesystem::path& path, std::string_view contents);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_PRIVATE_FILE_H_
