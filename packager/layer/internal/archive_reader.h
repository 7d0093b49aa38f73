// Reads the members of a local tar archive, plain or compressed with gzip,
// bzip2, xz or zstd (what Docker's ADD unpacks), with libarchive's built-in
// decompressors only (never an external program), counting entries and
// uncompressed bytes against an ExtractBudget.
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
#include "packager/unpack/extract_limits.h"

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
  // InvalidArgument naming the path when it is not such an archive;
  // FailedPrecondition when libarchive lacks a built-in decompressor.
  // `budget` (not owned, outliving the reader) is charged with every member
  // and every uncompressed byte; null only to look at the first header.
  static absl::StatusOr<std::unique_ptr<ArchiveReader>> Open(const std::filesystem::path& path,
                                                             unpack::ExtractBudget* budget);
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // The next member's header; false at the end. A damaged archive is
  // InvalidArgument naming the path; passing a cap is ResourceExhausted.
  absl::StatusOr<bool> Next(ArchiveMember* member);
  // Writes the current member's content (kFile) to `fd`.
  absl::Status CopyData(int fd);

 private:
  ArchiveReader(std::filesystem::path path, struct archive* a, unpack::ExtractBudget* budget)
      : path_(std::move(path)), a_(a), budget_(budget) {}
  absl::Status Error(std::string_view what) const;
  // Charges the budget with the uncompressed bytes read since the last call.
  absl::Status ChargeStream();
  absl::Status InArchive(const absl::Status& status) const;

  std::filesystem::path path_;
  struct archive* a_;
  unpack::ExtractBudget* budget_;
  int64_t charged_bytes_ = 0;
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_ARCHIVE_READER_H_
