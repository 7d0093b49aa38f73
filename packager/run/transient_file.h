// A host file that lives only as long as its owner (e.g. a job's /etc/hosts,
// bind-mounted into its containers): recorded in this process's
// HostResourceLedger before it is written, removed when the object goes or,
// if the process dies first (SIGKILL included), by the ledger's watchdog or
// the next sweep (host_resource_ledger.h).
//
//   TP_ASSIGN_OR_RETURN(TransientFile hosts,
//                       TransientFile::Write("/run/trainpkg/etc/1-42.hosts", text));
//
// Move-only.
#ifndef TRAINPKG_PACKAGER_RUN_TRANSIENT_FILE_H_
#define TRAINPKG_PACKAGER_RUN_TRANSIENT_FILE_H_

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "packager/run/host_resource_ledger.h"

namespace trainpkg::packager::run {

class TransientFile {
 public:
  // Creates `path` (absolute; its parent directories too), mode 0644, with
  // `contents`. Errors: AlreadyExists when the path is taken; the errno of
  // creating or writing it (naming the path); those of RecordHostResource.
  static absl::StatusOr<TransientFile> Write(const std::filesystem::path& path,
                                             std::string_view contents);

  TransientFile(TransientFile&& other) noexcept
      : path_(std::move(other.path_)), entry_(std::move(other.entry_)) {
    other.path_.clear();
  }
  TransientFile& operator=(TransientFile&&) = delete;
  TransientFile(const TransientFile&) = delete;
  TransientFile& operator=(const TransientFile&) = delete;
  // Removes the file, then its ledger record.
  ~TransientFile();

  const std::filesystem::path& path() const { return path_; }

 private:
  TransientFile(std::filesystem::path path, LedgerEntry entry)
      : path_(std::move(path)), entry_(std::move(entry)) {}

  std::filesystem::path path_;
  LedgerEntry entry_;
};

// A host directory that lives as long as its owner, the same way: removed
// with the files it holds (nothing nests in it), e.g. the /dev/shm that the
// containers of one job share.
class TransientDirectory {
 public:
  // Creates `path` (absolute; its parent must exist) with `mode` (umask
  // ignored). Errors as TransientFile::Write.
  static absl::StatusOr<TransientDirectory> Create(const std::filesystem::path& path, mode_t mode);

  TransientDirectory(TransientDirectory&& other) noexcept
      : path_(std::move(other.path_)), entry_(std::move(other.entry_)) {
    other.path_.clear();
  }
  TransientDirectory& operator=(TransientDirectory&&) = delete;
  TransientDirectory(const TransientDirectory&) = delete;
  TransientDirectory& operator=(const TransientDirectory&) = delete;
  // Removes the directory's files and the directory, then its ledger record.
  ~TransientDirectory();

  const std::filesystem::path& path() const { return path_; }

 private:
  TransientDirectory(std::filesystem::path path, LedgerEntry entry)
      : path_(std::move(path)), entry_(std::move(entry)) {}

  std::filesystem::path path_;
  LedgerEntry entry_;
};

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_TRANSIENT_FILE_H_
