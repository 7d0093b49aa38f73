#include "packager/layer/internal/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::layer_internal {

absl::StatusOr<std::unique_ptr<ArchiveReader>> ArchiveReader::Open(
    const std::filesystem::path& path, unpack::ExtractBudget* budget) {
  // Opened first so that a missing or unreadable file is reported as such,
  // not as "not an archive".
  if (::access(path.c_str(), R_OK) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  }
  struct archive* a = archive_read_new();
  if (a == nullptr) return absl::ResourceExhaustedError("archive_read_new failed");
  std::unique_ptr<ArchiveReader> reader(new ArchiveReader(path, a, budget));
  // Only what Docker's ADD decompresses, and only tar (ustar, pax, GNU, v7).
  // ARCHIVE_WARN means libarchive would run an external program instead.
  struct Filter {
    const char* name;
    int (*enable)(struct archive*);
  };
  for (const Filter& filter : {Filter{"gzip", &archive_read_support_filter_gzip},
                               Filter{"bzip2", &archive_read_support_filter_bzip2},
                               Filter{"xz", &archive_read_support_filter_xz},
                               Filter{"zstd", &archive_read_support_filter_zstd}}) {
    if (filter.enable(a) != ARCHIVE_OK) {
      return absl::FailedPreconditionError(fmt::format(
          "reading {}: this libarchive has no built-in {} decompressor (trainpkg never runs an "
          "external one)",
          path.string(), filter.name));
    }
  }
  archive_read_support_format_tar(a);
  if (archive_read_open_filename(a, path.c_str(), 64 * 1024) != ARCHIVE_OK) {
    return reader->Error("is not a tar archive (plain, gzip, bzip2, xz or zstd)");
  }
  return reader;
}

ArchiveReader::~ArchiveReader() { archive_read_free(a_); }

absl::Status ArchiveReader::Error(std::string_view what) const {
  const char* detail = archive_error_string(a_);
  return absl::InvalidArgumentError(fmt::format("{} {}{}{}", path_.string(), what,
                                                detail != nullptr ? ": " : "",
                                                detail != nullptr ? detail : ""));
}

absl::Status ArchiveReader::InArchive(const absl::Status& status) const {
  if (status.ok()) return status;
  return base::WithContext(status, path_.string());
}

absl::Status ArchiveReader::ChargeStream() {
  if (budget_ == nullptr) return absl::OkStatus();
  // Every decompressed byte is charged as it appears, headers and padding
  // included, so a compression bomb hits the limit whatever the sizes its
  // headers declare.
  const int64_t read = archive_filter_bytes(a_, 0);  // uncompressed, so far
  absl::Status charged = budget_->AddStreamBytes(read - charged_bytes_);
  charged_bytes_ = read;
  return InArchive(charged);
}

absl::StatusOr<bool> ArchiveReader::Next(ArchiveMember* member) {
  struct archive_entry* entry = nullptr;
  const int rc = archive_read_next_header(a_, &entry);
  TP_RETURN_IF_ERROR(ChargeStream());
  if (rc == ARCHIVE_EOF) return false;
  if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return Error("cannot be read as a tar archive");
  if (budget_ != nullptr) {
    const int64_t declared = archive_entry_filetype(entry) == AE_IFREG ? archive_entry_size(entry) : 0;
    TP_RETURN_IF_ERROR(InArchive(budget_->AddEntry(declared)));
  }
  *member = ArchiveMember{};
  const char* name = archive_entry_pathname(entry);
  member->name = name != nullptr ? name : "";
  member->mode = archive_entry_perm(entry) & 07777;
  member->owner = Owner{static_cast<uint32_t>(archive_entry_uid(entry)),
                        static_cast<uint32_t>(archive_entry_gid(entry))};
  member->mtime = archive_entry_mtime(entry);
  if (const char* hardlink = archive_entry_hardlink(entry)) {
    member->type = ArchiveMember::Type::kHardlink;
    member->link_target = hardlink;
    return true;
  }
  switch (archive_entry_filetype(entry)) {
    case AE_IFREG:
      member->type = ArchiveMember::Type::kFile;
      member->size = archive_entry_size(entry);
      break;
    case AE_IFDIR:
      member->type = ArchiveMember::Type::kDirectory;
      break;
    case AE_IFLNK: {
      member->type = ArchiveMember::Type::kSymlink;
      const char* target = archive_entry_symlink(entry);
      member->link_target = target != nullptr ? target : "";
      break;
    }
    case AE_IFCHR:
      member->type = ArchiveMember::Type::kOther;
      member->other_kind = "character device";
      break;
    case AE_IFBLK:
      member->type = ArchiveMember::Type::kOther;
      member->other_kind = "block device";
      break;
    case AE_IFIFO:
      member->type = ArchiveMember::Type::kOther;
      member->other_kind = "fifo";
      break;
    default:
      member->type = ArchiveMember::Type::kOther;
      member->other_kind = "special file";
      break;
  }
  return true;
}

absl::Status ArchiveReader::CopyData(int fd) {
  const int rc = archive_read_data_into_fd(a_, fd);
  if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return Error("is damaged");
  return ChargeStream();
}

}  // namespace trainpkg::packager::layer_internal
