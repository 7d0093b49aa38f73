// Ties host resources that outlive a process (runc containers, mounts,
// network namespaces) to the process that made them, so that none survives
// it, even after SIGKILL.
//
// Each resource is recorded before it is made, one file per resource:
//
//   /run/trainpkg/owners/<pid>-<start time>/r<n>     "<kind>\n<name>\n<runtime>\n"
//   /run/trainpkg/owners/<pid>-<start time>/watchdog  the watchdog's pid
//
// and the record is dropped once the resource is gone. The first record of
// a process forks its watchdog: a process in a session of its own, holding
// the read end of a pipe whose write end only the owner holds
// (close-on-exec). When the owner exits, however it exits, the watchdog
// reads end-of-file, removes what is still recorded (containers first with
// `<runtime> delete --force`, then mounts, lazily, then network
// namespaces, then files, then directories, each group newest first) and the owner's directory, and
// exits. SweepOrphanedHostResources() does the same for owners that are dead
// (their watchdog killed too), at the start of every trainpkg command.
// Start times (/proc/<pid>/stat) keep a reused pid from passing for the
// owner.
//
// Thread-safe. Records only make sense as root (runc, mounts); the sweep of
// a process that cannot read the directory does nothing.
#ifndef TRAINPKG_PACKAGER_RUN_HOST_RESOURCE_LEDGER_H_
#define TRAINPKG_PACKAGER_RUN_HOST_RESOURCE_LEDGER_H_

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace trainpkg::packager::run {

// Where the owners' directories live (a tmpfs: emptied at boot, as are the
// resources).
inline constexpr char kHostResourceLedgerDir[] = "/run/trainpkg/owners";

enum class HostResourceKind {
  kContainer,         // name: the container id; runtime: the runc binary
  kMount,             // name: the mount point
  kNetworkNamespace,  // name: the nsfs bind mount (network_namespace.h)
  kFile,              // name: an absolute path, unlinked (transient_file.h)
  kDirectory,         // name: an absolute path; its files unlinked, then it (transient_file.h)
};

struct HostResource {
  HostResourceKind kind;
  std::string name;     // REQUIRES: non-empty, no newline
  std::string runtime;  // kContainer only
};

// A record in the ledger; destroying it (or Release) drops the record, to
// be done once the resource is gone. Move-only; default: no record.
class LedgerEntry {
 public:
  LedgerEntry() = default;
  explicit LedgerEntry(std::filesystem::path record) : record_(std::move(record)) {}
  LedgerEntry(LedgerEntry&& other) noexcept : record_(std::move(other.record_)) {
    other.record_.clear();
  }
  LedgerEntry& operator=(LedgerEntry&& other) noexcept;
  LedgerEntry(const LedgerEntry&) = delete;
  LedgerEntry& operator=(const LedgerEntry&) = delete;
  ~LedgerEntry() { Release(); }

  void Release();

 private:
  std::filesystem::path record_;
};

// Records `resource` for this process (starting its watchdog on the first
// call). Errors: InvalidArgument for an empty name or one with a newline;
// the errno of creating the record or forking the watchdog.
absl::StatusOr<LedgerEntry> RecordHostResource(const HostResource& resource);

// Removes every resource recorded by owners that are no longer alive, and
// their directories. Failures are logged; nothing is returned because
// there is nothing a caller could do about them.
void SweepOrphanedHostResources();

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_HOST_RESOURCE_LEDGER_H_
