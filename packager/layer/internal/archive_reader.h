// Reads the members of a local tar archive, plain or compressed with gzip,
// bzip2, xz or zstd (what Docker's ADD unpacks), with libarchive.
//
//   TP_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, ArchiveReader::Open(path));
//   ArchiveMember member;
//   while (true) {
//     TP_ASSIGN_OR_RETURN(bool more, reader->Next(&member));
//     if (!more) break;
//     if (member.type == ArchiveMember::Type::kFile) TP_RETURN_IF_ERROR(reader->CopyData(fd));
//   }
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_ARCHIVE_READER_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_ARCHIVE_READER_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "packager/layer/layer_entry.h"

struct archive;

namespace trainpkg::packager::layer_internal {

struct ArchiveMember {
  enum class Type { kFile, kDirectory, kSymlink, kHardlink, kOther };

  std::string name;  // as written in the archive
  Type type = Type::kFile;
  uint32_t mode = 0;  // permission bits (07777)
  Owner owner;
  int64_t mtime = 0;
  int64_t size = 0;          // kFile
  std::string link_target;   // kSymlink: the link text; kHardlink: the member it links to
  std::string other_kind;    // kOther: "character device", "fifo", ...
};

class ArchiveReader {
 public:
  // NotFound / PermissionDenied when the file cannot be opened;
  // InvalidArgument naming the path when it is not such an archive.
  static absl::StatusOr<std::unique_ptr<ArchiveReader>> Open(const std::filesystem::path& path);
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // The next member's header; false at the end. A damaged archive is
  // InvalidArgument naming the path.
  absl::StatusOr<bool> Next(ArchiveMember* member);
  // Writes the current member's content (kFile) to `fd`.
  absl::Status CopyData(int fd);

 private:
  ArchiveReader(std::filesystem::path path, struct archive* a) : path_(std::move(path)), a_(a) {}
  absl::Status Error(std::string_view what) const;

  std::filesystem::path path_;
  struct archive* a_;
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_ARCHIVE_READER_H_
