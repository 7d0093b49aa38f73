#include "packager/layer/tar_archive.h"

#include <memory>

#include "packager/layer/internal/archive_reader.h"

namespace trainpkg::packager {

absl::StatusOr<bool> IsTarArchive(const std::filesystem::path& path) {
  absl::StatusOr<std::unique_ptr<layer_internal::ArchiveReader>> reader =
      layer_internal::ArchiveReader::Open(path, /*budget=*/nullptr);
  if (absl::IsInvalidArgument(reader.status())) return false;
  if (!reader.ok()) return reader.status();
  layer_internal::ArchiveMember first;
  absl::StatusOr<bool> has_member = (*reader)->Next(&first);
  return has_member.ok() && *has_member;
}

}  // namespace trainpkg::packager
